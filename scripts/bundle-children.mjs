#!/usr/bin/env node
// Bundles the entry the drill's processes start from (dist/cli/child-main.js)
// into dist/bundle/: one file and a few shared chunks instead of hundreds of
// modules, each resolved, read and compiled apart at every process start.
// Packages stay outside (better-sqlite3 is native; each is loaded only where a
// command needs it). The chunks sit two folders below the package root, as
// every compiled module does, so their paths relative to it still hold.
// Run by `npm run build` after tsc; without it the harness starts the unbundled entry.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/cli/child-main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
