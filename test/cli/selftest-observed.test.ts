import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';

/*
 * The queues people run are observed: drilled to show what they do, never
 * proved sound or broken. The self-test refuses them by name (before it runs
 * anything) and leaves them out of a run over every queue.
 */
describe('queue-drill selftest and the observed queues', () => {
  it.each(['bullmq', 'pg-boss', 'graphile-worker'])('refuses %s, pointing at compare', async (queue) => {
    const result = await execa(process.execPath, [CLI_PATH, 'selftest', '--queues', `reference,${queue}`], { reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${queue} is a queue people run`);
    expect(result.stderr).toContain('use queue-drill compare');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
