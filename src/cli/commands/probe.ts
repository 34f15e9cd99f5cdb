import { defineCommand } from '../command.js';

/**
 * `probe` (a child only the harness starts): loads what a worker loads, says
 * it is up, and ends. How long that takes, spawn to first line, is how long
 * this machine takes to start a drill's process right now
 * (src/harness/calibrate.ts: --time-scale auto).
 */
export const probeCommand = defineCommand({
  name: 'probe',
  describe: "start as a worker would, say so, and end (the harness's measure of this machine)",
  fast: true,
  options: {},
  async run() {
    await import('./worker.js');
    process.stdout.write('up\n');
  },
});
