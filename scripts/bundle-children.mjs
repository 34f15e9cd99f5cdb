#!/usr/bin/env node
// Bundles the entry the drill's processes start from (dist/cli/child-main.js)
// into dist/bundle/: one file and a few shared chunks instead of hundreds of
// modules, each resolved, read and compiled apart at every process start.
// Packages stay outside (better-sqlite3 is native; each is loaded only where a
// command needs it), but for zod: every worker loads it (a plan's steps are
// parsed with it), and from node_modules it is about 100 modules of its own,
// 75 ms of each worker's start; bundled, only the parts the drill uses. The chunks sit two folders below the package root, as
// every compiled module does, so their paths relative to it still hold.
// Run by `npm run build` after tsc; without it the harness starts the unbundled entry.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/** The packages bundled with the drill's code rather than loaded from node_modules. */
const INLINED = new Set(['zod']);
const dependencies = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies);
const external = dependencies.filter((name) => !INLINED.has(name)).flatMap((name) => [name, `${name}/*`]);

await build({
  entryPoints: ['dist/cli/child-main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  logLevel: 'warning',
});
