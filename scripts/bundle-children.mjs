#!/usr/bin/env node
// Bundles the entry the drill's processes start from (dist/cli/child-main.js)
// into one CommonJS file, dist/bundle/child-main.cjs, instead of hundreds of
// modules, each resolved, read and compiled apart at every process start.
// CommonJS, because Node loads one such file in about half the time it takes
// to load the same code as ES module chunks (its ES module loader's work per
// module and per import, measured: a worker's code 85 ms as 50 chunks, every
// child command's 40 ms as one file); the code a command does not run is
// wrapped to run only when first imported, so the file is parsed but not run.
// Packages stay outside (better-sqlite3 is native; each is loaded only where a
// command needs it, by require), but for zod: every worker loads it (a plan's
// steps are parsed with it), and from node_modules it is about 100 modules of
// its own; bundled, only the parts the drill uses. The bundle sits two folders
// below the package root, as every compiled module does, so its paths relative
// to its own URL (import.meta.url, defined below) still hold.
// Then it makes V8's code cache of the bundle, which the child loader (src/cli/child-loader.cts, the file the
// harness starts) compiles it from: measured, a worker's start then takes 55 ms of CPU instead of 72 (the bundle
// compiled in 3 ms instead of 12-15, the functions the start runs compiled already), a producer's 52 instead of 60.
// Run by `npm run build` after tsc; without it the harness starts the unbundled entry.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/** The packages bundled with the drill's code rather than loaded from node_modules. */
const INLINED = new Set(['zod']);
const dependencies = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies);
const external = dependencies.filter((name) => !INLINED.has(name)).flatMap((name) => [name, `${name}/*`]);

const OUTFILE = 'dist/bundle/child-main.cjs';
// Where src/cli/child-loader.cts (compiled by tsc, before this script) looks for the cache.
const CODE_CACHE = 'dist/bundle/child-main.v8-cache';
const CHILD_LOADER = 'dist/cli/child-loader.cjs';

/** What the bundle's import() calls become: the loader's import() when the loader runs it (it says why), else its own. */
const IMPORT_FUNCTION = '__dynamicImport';
const IMPORT_BANNER = `var ${IMPORT_FUNCTION} = globalThis.__queueDrillImport ?? ((specifier) => import(specifier));\n`;
// pg's driver, an adapter module by its file URL, the whole CLI. Another count means the rewrite missed a call or
// took text that is no call: look at the bundle before changing it.
const EXPECTED_IMPORTS = 3;

const built = await build({
  entryPoints: ['dist/cli/child-main.js'],
  outfile: OUTFILE,
  write: false,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  // A CommonJS file has no import.meta: its URL is the file's own.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
  // Escapes in strings and regular expressions, so the file is ASCII: see below.
  charset: 'ascii',
});

// One character beyond ASCII anywhere in a file (a dash in a comment esbuild kept) makes V8 hold the whole source
// as two-byte text: measured here, reading it then took 6-13 ms instead of 3-4, and compiling it 20 ms instead of 14,
// at every process start. What esbuild left is escaped as \uXXXX, which means the same character in a string, a
// template or a regular expression, and is plain text in a comment.
const escaped = built.outputFiles[0].text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// The child loader runs the bundle wrapped in a function, where a #! line is a syntax error; it is no one's command now.
const bundle = withBundleId(withLoaderImport(escaped.replace(/^#!.*\n/, '')));
mkdirSync(dirname(OUTFILE), { recursive: true });
rmSync(CODE_CACHE, { force: true });
writeFileSync(OUTFILE, bundle);
makeCodeCache();

/** The bundle with every import() calling the loader's: one left as it was would fail when the loader runs it. */
function withLoaderImport(code) {
  if (code.includes(IMPORT_FUNCTION)) throw new Error(`${OUTFILE}: the bundle already has a ${IMPORT_FUNCTION}: rename IMPORT_FUNCTION`);
  let rewritten = 0;
  const result = code.replace(/(?<![\w$.])import\(/g, () => {
    rewritten += 1;
    return `${IMPORT_FUNCTION}(`;
  });
  const left = result.split('\n').filter((line) => /\bimport\s*\(/.test(line));
  if (rewritten !== EXPECTED_IMPORTS || left.length > 0) {
    throw new Error(
      `${OUTFILE}: ${rewritten} import() calls rewritten where ${EXPECTED_IMPORTS} were expected, ${left.length} left as they were` +
        `${left.map((line) => `\n  ${line.trim().slice(0, 120)}`).join('')}\n` +
        `Each must call ${IMPORT_FUNCTION} (src/cli/child-loader.cts says why): fix the rewrite, or EXPECTED_IMPORTS if the count changed.`,
    );
  }
  return IMPORT_BANNER + result;
}

/** The bundle ending with its id, a sha256 of what comes before: the key of its code cache (src/cli/child-loader.cts). */
function withBundleId(code) {
  const text = code.endsWith('\n') ? code : `${code}\n`;
  return `${text}// build ${createHash('sha256').update(text).digest('hex')}\n`;
}

/**
 * Makes the code cache as a worker (most of a drill's processes) starts: the loader writes it at the worker's exit,
 * with the functions its start ran (a cache made by `probe` instead saves a worker 6 ms less). Made with no node
 * flags, as the harness starts children (V8 refuses a cache made under other flags), and this environment's
 * NODE_OPTIONS, as a drill run from the same shell gives them. A child that then does not take it is said on
 * stderr, where every child would go on compiling the bundle unseen (test/cli/child-code-cache.test.ts fails too).
 */
function makeCodeCache() {
  const scratch = mkdtempSync(join(tmpdir(), 'queue-drill-code-cache-'));
  try {
    const quiet = { stdio: ['ignore', 'ignore', 'inherit'] };
    // With a world, a worker loads what runs a plan's steps; the queue is empty, so nothing calls it.
    const worker = ['worker', '--store', join(scratch, 'queue.db'), '--id', 'code-cache', '--world', 'http://127.0.0.1:9', '--exit-when-drained'];
    execFileSync(process.execPath, [CHILD_LOADER, ...worker], { ...quiet, env: { ...process.env, QD_CODE_CACHE_MAKE: '1' } });
    const report = join(scratch, 'cache-use');
    execFileSync(process.execPath, [CHILD_LOADER, 'probe'], { ...quiet, env: { ...process.env, QD_CODE_CACHE_REPORT: report } });
    const use = readFileSync(report, 'utf8').trim();
    // Said, not fatal: without the cache every child compiles the bundle, as before the cache (slower, as correct).
    if (use !== 'accepted')
      process.stderr.write(
        `warning: ${CODE_CACHE}: a child started after it was made found it ${use}, not accepted (src/cli/child-loader.cts says what V8 refuses)\n`,
      );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
