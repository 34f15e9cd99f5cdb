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
// Run by `npm run build` after tsc; without it the harness starts the unbundled entry.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

/** The packages bundled with the drill's code rather than loaded from node_modules. */
const INLINED = new Set(['zod']);
const dependencies = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies);
const external = dependencies.filter((name) => !INLINED.has(name)).flatMap((name) => [name, `${name}/*`]);

const OUTFILE = 'dist/bundle/child-main.cjs';

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
mkdirSync(dirname(OUTFILE), { recursive: true });
writeFileSync(OUTFILE, escaped, { mode: 0o755 });
