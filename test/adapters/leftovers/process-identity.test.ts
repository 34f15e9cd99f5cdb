import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { hostHere, lookAtProcess, processStart } from '../../../src/adapters/leftovers/process-identity.js';

/* How the judge sees real processes of this host: one that runs, one that ended, and a pid that names another process. */

describe.skipIf(process.platform !== 'linux')('process identity on Linux', () => {
  it('knows this host and its boot', () => {
    expect(hostHere().bootId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sees a running process with its start time, and an ended one as gone', async () => {
    const child = execa(process.execPath, ['-e', 'process.stdin.resume()'], { stdin: 'pipe' });
    try {
      const start = processStart(child.pid!);
      expect(start).toMatch(/^\d+$/);
      expect(lookAtProcess(child.pid!)).toEqual({ alive: true, start });
      // Started after this test process: another start time, as a reused pid would have.
      expect(start).not.toBe(processStart(process.pid));
    } finally {
      child.stdin!.end();
      await child;
    }
    expect(lookAtProcess(child.pid!)).toEqual({ alive: false, start: null });
  });
});
