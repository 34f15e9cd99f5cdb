import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { withPgClient } from '../../../src/adapters/postgres/connection.js';
import { dropSchema } from '../../../src/adapters/postgres/provision.js';
import { connectQueue, queueImpl } from '../../../src/adapters/registry.js';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { Transition } from '../../../src/port/snapshot.js';
import { checkReport } from '../../../src/report/schema.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * Shipped scenarios on --queue graphile-worker, through the CLI, with real
 * processes and the real server. What they show (observed, and why):
 *  - crash-after-claim runs no coordinator: not judged, since nothing would
 *    free a dead worker's lock before graphile's 4-hour sweep;
 *  - crash-after-write passes: the coordinator frees the dead worker's lock
 *    with forceUnlockWorkers, the next holder resumes at the next step;
 *  - zombie-complete: graphile accepts the paused worker's late complete
 *    (completeJob deletes by id whoever holds the job): the history shows the
 *    done written by w1 under its old epoch after the coordinator took w1's
 *    lock back. Which invariant breaks depends on whether another worker had
 *    claimed it meanwhile (transitions-allowed when not); the write is the fact;
 *  - concurrent-enqueue breaks dedupe-on-enqueue: graphile deletes completed
 *    jobs, so the restarted producer's enqueue of a key whose job is done makes
 *    a second job (job_key dedupes only while the row exists).
 * At --time-scale 3 (leases 1.2 s, the no-progress watchdog 12 s): graphile has
 * no heartbeat, so at the shipped 400 ms lease a live worker slowed by a busy
 * machine is taken for dead and unlocked, and a slow start of its processes
 * trips the 4 s watchdog; the shape of each scenario is the same.
 * Each schema is kept (--keep) to be read, then dropped.
 */

const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true', QD_PG_URL: PG_URL } });

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function schemaExists(schema: string): Promise<boolean> {
  return withPgClient(PG_URL, async (client) => ((await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount ?? 0) > 0);
}

async function historyOf(schema: string): Promise<Transition[]> {
  const queue = await connectQueue(queueImpl('graphile-worker'), schema, {
    clock: systemClock(),
    random: seededRandom(1),
    servers: { pgUrl: PG_URL },
  });
  try {
    return (await queue.snapshot()).history;
  } finally {
    await queue.close();
  }
}

describe.skipIf(skipWithoutPg('shipped scenarios on --queue graphile-worker (test/selftest/queues/graphile-worker-drill.test.ts)'))(
  'graphile-worker drills',
  () => {
    it('runs shipped scenarios through the CLI, with the verdicts graphile-worker earns', { timeout: 240_000 }, async () => {
      const out = tempRunDir('gw-drill');
      cleanup.push(out.remove);
      const only = 'crash-after-claim,crash-after-write,zombie-complete,concurrent-enqueue';
      const result = await cli([
        'run',
        'scenarios.yaml',
        '--only',
        only,
        '--queue',
        'graphile-worker',
        '--time-scale',
        '3',
        '--parallel',
        '1',
        '--keep',
        '--out',
        out.dir,
      ]);
      const checked = checkReport(JSON.parse(readFileSync(join(out.dir, 'latest', 'report.json'), 'utf8')));
      if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
      const report = checked.report;
      const schemas = report.scenarios.map((s) => /schema (qd_gw_[a-z0-9_]+)$/.exec(s.artefacts.store)?.[1]).filter((s) => s !== undefined);
      for (const schema of schemas)
        cleanup.push(async () => {
          await dropSchema(PG_URL, schema);
          expect(await schemaExists(schema)).toBe(false);
        });
      expect(result.exitCode, result.stderr).toBe(1);
      const scenario = (name: string) => {
        const found = report.scenarios.find((s) => s.name === name);
        if (!found) throw new Error(`no scenario ${name} in the report`);
        return found;
      };
      const schemaOf = (name: string) => /schema (qd_gw_[a-z0-9_]+)$/.exec(scenario(name).artefacts.store)?.[1] ?? '';

      expect(scenario('crash-after-claim')).toMatchObject({ verdict: 'not_judged', notJudged: expect.stringContaining('4 hours') });

      expect(scenario('crash-after-write').verdict, JSON.stringify(scenario('crash-after-write').invariants)).toBe('pass');
      const takenBack = await historyOf(schemaOf('crash-after-write'));
      expect(takenBack).toContainEqual(expect.objectContaining({ from: 'running', to: 'retry', actor: 'coordinator' }));
      expect(takenBack.at(-1)).toMatchObject({ to: 'done', actor: 'worker' });

      const zombie = await historyOf(schemaOf('zombie-complete'));
      // The paused worker is whichever claimed the job first (epoch 1): w1 or w2, as the race between them went.
      const paused = zombie.find((t) => t.to === 'running')?.worker;
      const unlocked = zombie.findIndex((t) => t.actor === 'coordinator' && t.worker === paused && t.from === 'running');
      const done = zombie.findIndex((t) => t.to === 'done');
      expect(unlocked, JSON.stringify(zombie)).toBeGreaterThan(0);
      expect(zombie[done]).toMatchObject({ worker: paused, epoch: 1, actor: 'worker' });
      expect(done).toBeGreaterThan(unlocked);

      const dedupe = scenario('concurrent-enqueue').invariants.find((i) => i.id === 'dedupe-on-enqueue');
      expect(dedupe?.status).toBe('broken');
      expect(dedupe?.evidence.join('\n')).toMatch(/2 jobs in the store/);
    });
  },
);
