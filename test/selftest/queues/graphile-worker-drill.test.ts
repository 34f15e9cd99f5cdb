import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { withPgClient } from '../../../src/adapters/pg/connection.js';
import { quoteIdent } from '../../../src/adapters/pg/identifier.js';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import { connectQueue } from '../../../src/port/connect-queue.js';
import type { Transition } from '../../../src/port/snapshot.js';
import { queueImpl } from '../../../src/queues/registry.js';
import { checkReport, type DrillReport } from '../../../src/report/schema.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * Shipped scenarios on --queue graphile-worker, through the CLI, with real
 * processes and the real server. Each drill gets a database of its own (the
 * report's `where`: postgres://…/qd_gw_… schema graphile_worker), and the
 * adapter runs graphile as it ships: addJob's default jobKeyMode replace, and
 * nothing but graphile's own sweep, once a lock is 4 hours old, unlocks a dead
 * worker's job. What they show (observed, and why):
 *  - as shipped, a drill whose fault kills or freezes a job's holder is not
 *    judged, before anything runs: nothing would free the lock within the
 *    drill (crash-after-claim, crash-after-write);
 *  - the main run passes --queue-option release_dead_locks=true: the drill's
 *    coordinator frees a silent worker's lock with forceUnlockWorkers after
 *    the lease, the piece a deployment may add. crash-after-write needs it, and
 *    with it passes: the next holder resumes at the next step;
 *  - zombie-complete (with the option) fails on single-holder, judged from the
 *    world's record (graphile fences no write and records no refusal): the
 *    paused worker's late done (completeJob deletes by id whoever holds the
 *    job) came after the next holder's delivery began. Its history shows it
 *    too: that done, under its old epoch, after the coordinator took its
 *    lock back;
 *  - concurrent-enqueue breaks dedupe-on-enqueue: job_key dedupes only a
 *    waiting job; graphile deletes a completed one, and in replace mode makes
 *    a second job beside a locked one (graphile/worker#303), so the restarted
 *    producer's enqueue of a key makes a second job.
 * At --time-scale 3 (leases 1.2 s, the no-progress watchdog 12 s): graphile has
 * no heartbeat, so at the shipped 400 ms lease a live worker slowed by a busy
 * machine is taken for dead and unlocked, and a slow start of its processes
 * trips the 4 s watchdog; the shape of each scenario is the same.
 * Each database is kept (--keep) to be read, then dropped.
 */

const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true', QD_PG_URL: PG_URL } });

/** The drill's database, from the report's `where` (artefacts.store). */
const DATABASE = /\/(qd_gw_[a-z0-9_]+) schema graphile_worker$/;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function databaseExists(database: string): Promise<boolean> {
  return withPgClient(PG_URL, async (client) => ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount ?? 0) > 0);
}

async function dropDatabase(database: string): Promise<void> {
  await withPgClient(PG_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`));
}

/** The history of a kept drill, read as its processes ran (with the option the run was given). */
async function historyOf(database: string): Promise<Transition[]> {
  const queue = await connectQueue(queueImpl('graphile-worker'), database, {
    clock: systemClock(),
    random: seededRandom(1),
    servers: { pgUrl: PG_URL },
    queueOptions: { release_dead_locks: true },
  });
  try {
    return (await queue.snapshot()).history;
  } finally {
    await queue.close();
  }
}

function readReport(dir: string): DrillReport {
  const checked = checkReport(JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')));
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  return checked.report;
}

describe.skipIf(skipWithoutPg('shipped scenarios on --queue graphile-worker (test/selftest/queues/graphile-worker-drill.test.ts)'))(
  'graphile-worker drills',
  () => {
    it('runs shipped scenarios through the CLI, with the verdicts graphile-worker earns', { timeout: 240_000 }, async () => {
      const out = tempRunDir('gw-drill');
      cleanup.push(out.remove);
      // release_dead_locks=true: crash-after-write and zombie-complete need the coordinator to free a stopped holder's lock
      // (graphile alone frees it after 4 h, so without the option they are not judged, as asserted below).
      const result = await cli([
        'run',
        'scenarios.yaml',
        '--only',
        'crash-after-write,zombie-complete,concurrent-enqueue',
        '--queue',
        'graphile-worker',
        '--queue-option',
        'release_dead_locks=true',
        '--time-scale',
        '3',
        '--parallel',
        '1',
        '--keep',
        '--out',
        out.dir,
      ]);
      const report = readReport(out.dir);
      const databases = report.scenarios.map((s) => DATABASE.exec(s.artefacts.store)?.[1]).filter((d) => d !== undefined);
      for (const database of databases)
        cleanup.push(async () => {
          await dropDatabase(database);
          expect(await databaseExists(database)).toBe(false);
        });
      // One database per drill, each named in its `where`.
      expect(databases, JSON.stringify(report.scenarios.map((s) => s.artefacts.store))).toHaveLength(3);
      expect(new Set(databases).size).toBe(3);
      expect(result.exitCode, result.stderr).toBe(1);
      const scenario = (name: string) => {
        const found = report.scenarios.find((s) => s.name === name);
        if (!found) throw new Error(`no scenario ${name} in the report`);
        return found;
      };
      const databaseOf = (name: string) => DATABASE.exec(scenario(name).artefacts.store)?.[1] ?? '';
      for (const s of report.scenarios) expect(s.queueOptions).toEqual({ job_key_mode: 'replace', release_dead_locks: true });

      expect(scenario('crash-after-write').verdict, JSON.stringify(scenario('crash-after-write').invariants)).toBe('pass');
      const takenBack = await historyOf(databaseOf('crash-after-write'));
      expect(takenBack).toContainEqual(expect.objectContaining({ from: 'running', to: 'retry', actor: 'coordinator' }));
      expect(takenBack.at(-1)).toMatchObject({ to: 'done', actor: 'worker' });

      // graphile fences no write and keeps no refusal, but the world's record places each write against each delivery:
      // the paused worker's late complete came after the next holder's delivery began, and graphile applied it.
      const zombieCell = scenario('zombie-complete');
      expect(zombieCell).toMatchObject({ verdict: 'fail', notJudged: null, unjudgedChecks: [] });
      const single = zombieCell.invariants.find((i) => i.id === 'single-holder')!;
      expect(single.status, JSON.stringify(single)).toBe('broken');
      expect(single.evidence.join('\n')).toMatch(
        /wrote done to the queue at .*, after w\d's delivery \(attempt 2, epoch 2\) began at .*, and the queue applied it/,
      );
      const zombie = await historyOf(databaseOf('zombie-complete'));
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

    it("does not judge a drill whose holder dies without release_dead_locks: graphile's sweep frees the lock after 4 h", async () => {
      const out = tempRunDir('gw-drill-as-shipped');
      cleanup.push(out.remove);
      // No --queue-option, no --keep: refused before anything runs, so no database is made.
      await cli(['run', 'scenarios.yaml', '--only', 'crash-after-claim,crash-after-write', '--queue', 'graphile-worker', '--out', out.dir]);
      const report = readReport(out.dir);
      expect(report.scenarios.map((s) => [s.name, s.verdict, s.notJudged, s.artefacts.store])).toEqual(
        ['crash-after-claim', 'crash-after-write'].map((name) => [
          name,
          'not_judged',
          expect.stringMatching(/releases a dead worker's lock after 4 h.*release_dead_locks=true/),
          '(none: nothing ran)',
        ]),
      );
    });
  },
);
