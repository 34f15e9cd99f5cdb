import { resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

const SMALL = resolve('test/fixtures/scenarios/drill-small.yaml');

// Every command that runs drills side by side takes --parallel within one range, read from one place
// (kernel/defaults.ts), and refuses one out of it as bad input (exit 2) before anything starts.
describe('--parallel', () => {
  it.each([
    ['run', SMALL],
    ['compare', SMALL, '--queues', 'sqlite'],
    ['explore', '--runs', '1'],
    ['soak', '--runs', '1'],
    ['selftest', '--queues', 'sqlite'],
  ])('%s refuses 0 and 17', { timeout: 30_000 }, async (...args) => {
    const run = tempRunDir('parallel-flag');
    try {
      for (const parallel of ['0', '17']) {
        const result = await execa(process.execPath, [CLI_PATH, ...args, '--parallel', parallel, '--out', run.dir], { reject: false });
        expect(result.exitCode, result.stderr).toBe(2);
        // run and explore also take auto (src/drill/drill-lanes.ts), and say so.
        expect(result.stderr).toMatch(new RegExp(`--parallel must be (auto or )?a whole number from 1 to 16, got ${parallel}`));
      }
    } finally {
      run.remove();
    }
  });
});
