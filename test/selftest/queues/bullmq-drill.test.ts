import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import type { DrillReport } from '../../../src/report/schema.js';
import { keysMatching, skipWithoutRedis } from '../../helpers/redis.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * Shipped scenarios on BullMQ, through the CLI, as real child processes
 * (dist/: build first). What they showed, and why:
 *   - crash-after-claim: the worker SIGKILLed right after its claim leaves the
 *     job active with a lock nobody renews; another worker's stalled checker
 *     moves it back to wait once the lock is gone (two passes), and it is done.
 *   - zombie-complete: the paused worker's late complete is refused by BullMQ
 *     ("Lock mismatch": its token no longer holds the lock), the new holder's
 *     complete stands; its effect had already happened (idempotent by key in
 *     the world, so no duplicate).
 * single-holder is never judged: BullMQ records no refusal, so zombie-complete, which exists to check it, is not judged.
 */
describe.skipIf(skipWithoutRedis('shipped drills on the bullmq queue (test/adapters/bullmq)'))('bullmq: shipped drills', () => {
  let run: ReturnType<typeof tempRunDir> | undefined;
  afterEach(() => run?.remove());

  it('crash-after-claim passes; zombie-complete passes, single-holder judged at the world (BullMQ keeps no refusal); no key is left', async () => {
    run = tempRunDir('bullmq-drill');
    const only = 'crash-after-claim,zombie-complete';
    const result = await execa(
      process.execPath,
      [CLI_PATH, 'run', 'scenarios.yaml', '--only', only, '--queue', 'bullmq', '--parallel', '1', '--out', run.dir],
      {
        reject: false,
      },
    );
    const report = JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport;
    const verdicts = Object.fromEntries(report.scenarios.map((s) => [s.name, s.verdict]));
    expect(verdicts, result.stdout).toEqual({ 'crash-after-claim': 'pass', 'zombie-complete': 'pass' });
    const zombie = report.scenarios.find((s) => s.name === 'zombie-complete')!;
    expect(zombie.unjudgedChecks).toEqual([]);
    for (const scenario of report.scenarios) {
      // BullMQ keeps no refusal, so its history cannot judge it; the world's record of each write against each delivery can.
      const single = scenario.invariants.find((i) => i.id === 'single-holder');
      expect(single).toMatchObject({
        status: 'held',
        note: expect.stringMatching(/^judged at the world .*only \(not by epochs or refusals\): needs refusals/),
      });
      expect(single!.judged).toBeGreaterThan(0);
      expect(scenario.world).toBe('plain');
    }
    // The zombie is whichever worker claimed the job first (two workers race for it).
    const zombieDir = join(run.dir, 'latest', 'zombie-complete');
    const workerLogs = readdirSync(zombieDir)
      .filter((name) => /^w\d+\.\d+\.log$/.test(name))
      .map((name) => readFileSync(join(zombieDir, name), 'utf8'));
    const zombieLog = workerLogs.find((log) => /"event":"claimed"[^\n]*"attempt":1\b/.test(log));
    expect(zombieLog, workerLogs.join('\n')).toBeDefined();
    expect(zombieLog).toMatch(/"stored":false,"refused":"(Lock mismatch|Missing lock) for job/);
    // The prefix begins with the scenario's name and the run's stamp, made readable (src/adapters/bullmq/provision.ts).
    const stamp = readdirSync(run.dir).find((name) => name !== 'latest')!;
    for (const name of ['crash-after-claim', 'zombie-complete']) {
      const readable = `${name} ${stamp}`
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .slice(0, 40);
      expect(await keysMatching(`qd-${readable}*`)).toEqual([]);
    }
  });
});
