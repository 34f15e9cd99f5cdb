#!/usr/bin/env node
// Moves source files or folders and rewrites every relative import that points
// at them or out of them (src/, test/, scripts/, examples/), so a restructuring
// is one command and `tsc` the proof. Relative strings that name no source file
// (a path to dist/, a fixture) are left alone and listed when their file moves
// to another depth, to be checked by hand.
// Usage: node scripts/move-modules.mjs OLD=NEW [OLD=NEW]...   (paths from the repo root; git mv underneath)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOTS = ['src', 'test', 'scripts', 'examples', 'bench'];
const CODE = /\.(ts|mts|cts|mjs|js|tsx)$/;
const root = process.cwd();

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const moves = process.argv.slice(2).map((pair) => {
  const [from, to] = pair.split('=');
  if (!from || !to) throw new Error(`not OLD=NEW: ${pair}`);
  return { from: resolve(root, from), to: resolve(root, to) };
});

/** Where a path of the old tree lies in the new one. */
function moved(path) {
  for (const { from, to } of moves) {
    if (path === from) return to;
    if (path.startsWith(from + sep)) return to + path.slice(from.length);
  }
  return path;
}

const all = new Set(ROOTS.flatMap((dir) => filesUnder(resolve(root, dir))));

/** The source file a relative specifier names, in the old tree, with how to spell it back. */
function targetOf(file, spec) {
  const abs = resolve(dirname(file), spec);
  if (all.has(abs)) return { path: abs, spell: (p) => p };
  if (/\.js$/.test(abs) && all.has(abs.replace(/\.js$/, '.ts')))
    return { path: abs.replace(/\.js$/, '.ts'), spell: (p) => p.replace(/\.ts$/, '.js') };
  if (all.has(`${abs}.ts`)) return { path: `${abs}.ts`, spell: (p) => p.replace(/\.ts$/, '') };
  if (all.has(join(abs, 'index.ts'))) return { path: join(abs, 'index.ts'), spell: (p) => dirname(p) };
  for (const { from } of moves) if (abs === from || abs.startsWith(from + sep)) return { path: abs, spell: (p) => p };
  return undefined;
}

const unresolved = [];
for (const file of all) {
  if (!CODE.test(file)) continue;
  const text = readFileSync(file, 'utf8');
  const newFile = moved(file);
  const rewritten = text.replace(/(['"`])(\.\.?\/[^'"`\s]*)\1/g, (whole, quote, spec) => {
    const target = targetOf(file, spec);
    if (!target) {
      if (newFile !== file && dirname(relative(root, newFile)).split(sep).length !== dirname(relative(root, file)).split(sep).length)
        unresolved.push(`${relative(root, newFile)}: ${spec}`);
      return whole;
    }
    let next = relative(dirname(newFile), target.spell(moved(target.path)));
    if (!next.startsWith('.')) next = `./${next}`;
    return `${quote}${next.split(sep).join('/')}${quote}`;
  });
  if (rewritten !== text) writeFileSync(file, rewritten);
}
for (const { from, to } of moves) {
  execFileSync('mkdir', ['-p', dirname(to)]);
  execFileSync('git', ['mv', from, to]);
}
for (const line of unresolved) console.error(`check by hand: ${line}`);
