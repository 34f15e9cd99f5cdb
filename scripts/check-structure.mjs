#!/usr/bin/env node
// The house rules a formatter and a linter cannot see, checked over src/:
//   - layers: each top folder of src/ imports only the folders it may depend on
//     (low layers never import higher ones), and no two folders import each other
//     through any chain (no cycles between folders);
//   - size: no function longer than MAX_FUNCTION_LINES lines, no line longer than MAX_LINE.
// Usage: node scripts/check-structure.mjs [--root DIR] [--longest N]
// Exit 0 when the rules hold, 1 with one line per breach when not.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const MAX_LINE = 160;

// Which top folders of src/ each may import (itself always). The order reads bottom-up.
export const LAYERS = {
  kernel: [],
  port: ['kernel'],
  faults: ['kernel'],
  world: ['kernel'],
  harness: ['kernel', 'faults'],
  queue: ['kernel', 'port'],
  saga: ['kernel', 'port', 'faults', 'world'],
  adapters: ['kernel', 'port', 'queue', 'saga'],
  contract: ['kernel', 'port', 'adapters'],
  worker: ['kernel', 'port', 'queue', 'saga', 'faults', 'world', 'adapters'],
  producer: ['kernel', 'port', 'faults', 'adapters'],
  coordinator: ['kernel', 'port', 'queue', 'saga', 'world', 'adapters'],
  observe: ['kernel', 'port', 'world'],
  report: ['kernel', 'faults'],
  scenarios: ['kernel', 'port', 'queue', 'saga', 'faults', 'world', 'harness', 'adapters', 'observe', 'report'],
  explore: ['kernel', 'faults', 'world', 'saga', 'report', 'scenarios'],
  selftest: ['kernel', 'adapters', 'report', 'scenarios', 'explore'],
  compare: ['kernel', 'port', 'adapters', 'report', 'scenarios'],
  demo: ['kernel', 'port', 'harness', 'adapters', 'worker'],
  // The benchmark suite (npm run bench) measures everything below it and is imported by nothing.
  bench: ['kernel', 'port', 'queue', 'faults', 'harness', 'adapters', 'report', 'scenarios'],
  api: [],
  cli: [],
};
// The top, side by side: the command line and the library (src/api: the package's entry point) may import anything below
// them (but the bench, which stands beside them and is imported by nothing).
LAYERS.api = Object.keys(LAYERS).filter((folder) => !['api', 'cli', 'bench'].includes(folder));
LAYERS.cli = Object.keys(LAYERS).filter((folder) => !['api', 'cli', 'bench'].includes(folder));

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function topFolder(srcDir, file) {
  const rel = relative(srcDir, file).split(sep);
  return rel.length > 1 ? rel[0] : '(root)';
}

/** Every relative module a file imports (static, type-only, dynamic, re-exports), resolved to a path. */
function importsOf(file, source) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((spec) => spec.startsWith('.')).map((spec) => resolve(dirname(file), spec));
}

/** Every function-like node with the lines it spans. */
function functionsOf(file, source) {
  const found = [];
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node)
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const name =
        node.name && ts.isIdentifier(node.name)
          ? node.name.text
          : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)
            ? node.parent.name.text
            : '(anonymous)';
      found.push({ file, name, start, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Folder cycles: each strongly connected set of more than one folder (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const connect = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        connect(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) connect(v);
  return found;
}

/** Checks a tree; returns the breaches (one line each) and every function with its length. */
export function checkStructure(root, layers = LAYERS) {
  const srcDir = join(root, 'src');
  const breaches = [];
  const functions = [];
  const graph = new Map();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const from = topFolder(srcDir, file);
    const shown = relative(root, file);
    for (const target of importsOf(file, source)) {
      const to = topFolder(srcDir, target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from).add(to);
      const allowed = layers[from];
      if (allowed === undefined) breaches.push(`${shown}: src/${from}/ is in no layer (add it to LAYERS in scripts/check-structure.mjs)`);
      else if (!allowed.includes(to))
        breaches.push(
          `${shown} imports src/${to}/ (${relative(root, target)}): ${from} may import only ${allowed.join(', ') || 'nothing outside itself'}`,
        );
    }
    text.split('\n').forEach((line, i) => {
      if (line.length > MAX_LINE) breaches.push(`${shown}:${i + 1}: line of ${line.length} characters (at most ${MAX_LINE})`);
    });
    for (const fn of functionsOf(shown, source)) {
      functions.push(fn);
      if (fn.lines > MAX_FUNCTION_LINES)
        breaches.push(`${shown}:${fn.start}: function ${fn.name} is ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
    }
  }
  for (const cycle of cycles(graph)) breaches.push(`folders import each other in a cycle: ${cycle.join(', ')}`);
  return { breaches: [...new Set(breaches)], functions: functions.sort((a, b) => b.lines - a.lines) };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const args = process.argv.slice(2);
  const root = args.includes('--root') ? args[args.indexOf('--root') + 1] : process.cwd();
  const longest = args.includes('--longest') ? Number(args[args.indexOf('--longest') + 1]) : 0;
  const { breaches, functions } = checkStructure(root);
  for (const fn of functions.slice(0, longest)) console.log(`${String(fn.lines).padStart(4)} lines  ${fn.file}:${fn.start} ${fn.name}`);
  for (const breach of breaches) console.error(breach);
  if (breaches.length > 0) {
    console.error(`${breaches.length} breach(es) of the house rules`);
    process.exitCode = 1;
  }
}
