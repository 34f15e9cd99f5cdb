import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import { resolvePgUrl } from '../../adapters/pg/connection.js';
import { affectedOf } from '../../adapters/pg-boss/affected.js';
import type { ChildSpec } from './child-spec.js';
import type { ChildWork } from './child-work.js';

/** The one pg-boss queue of a throughput cell, in the cell's own schema. */
export const PGBOSS_BENCH_QUEUE = 'bench';

/** pg-boss's shortest polling interval (attorney.js POLICY.MIN_POLLING_INTERVAL_MS): the wait when jobs remain but none can be fetched yet. */
const POLLING_INTERVAL_MS = 500;

/**
 * pg-boss in the cell's schema, pg-boss's own defaults (its pool, its
 * maintenance every 120 s, as BullMQ's Worker runs its stalled-job check)
 * except where they would change what is measured: no migration (prepare made
 * the schema; a worker never changes it), and no scheduling (the bench has no
 * cron; pg-boss's timekeeper would create its internal queue, a partition, in
 * every process and poll it during the cell).
 *
 * Each job as pg-boss's `work()` takes it with batchSize 1, one job at a time
 * (as a reference worker takes them): its fetch (one transaction) and its
 * complete (another), the handler between them a no-op. Not `work()` itself:
 * in 10.4 its loop (worker.js) waits the polling interval after every fetch,
 * jobs found or not, so one job a fetch caps a process at 2 jobs/s (measured:
 * 20 jobs in 9.6 s) and the figure would be the interval's; and it sends the
 * complete without awaiting it, so a handler's count is not of completed jobs.
 * The interval is waited here only when a fetch finds nothing while jobs remain.
 */
export async function openPgbossWork(spec: ChildSpec): Promise<ChildWork> {
  const boss = new PgBoss({
    connectionString: resolvePgUrl(),
    schema: spec.locator,
    application_name: 'queue-drill bench',
    migrate: false,
    schedule: false,
  });
  // pg-boss emits its maintenance's errors; without a listener one would end the process. The loop's own (complete, getQueueSize) throw.
  boss.on('error', () => undefined);
  await boss.start();
  return {
    async run(stop) {
      let units = 0;
      let lastAt: number | null = null;
      while (!stop.aborted) {
        const [job] = await boss.fetch(PGBOSS_BENCH_QUEUE, { batchSize: 1 });
        if (job === undefined) {
          if (await drained(boss)) break;
          await sleep(POLLING_INTERVAL_MS, undefined, { signal: stop }).catch(() => undefined);
          continue;
        }
        const completed = await boss.complete(PGBOSS_BENCH_QUEUE, job.id);
        if (affectedOf(completed) !== 1) throw new Error(`pg-boss's complete of job ${job.id} matched ${affectedOf(completed)} jobs, not 1`);
        units++;
        lastAt = Date.now();
      }
      return { units, lastAt };
    },
    // Not graceful: no work() loop runs, and the job in hand was completed before run returned. pg-boss closes the pool it opened.
    close: () => boss.stop({ graceful: false, wait: true }),
  };
}

/*
 * Whether nothing is left for this worker: pg-boss's getQueueSize, its count
 * of the queue's jobs before 'active' (created, retry), over the partial index
 * its fetch uses, so cheap, and asked only after an empty fetch. An empty
 * fetch alone is not enough: pg-boss's fetch swallows a failed query and
 * answers [] (manager.js fetch), and a job in retry is not fetched before its
 * start_after; getQueueSize throws on failure. Jobs other workers hold are
 * theirs to complete: counting them too would only keep this one polling.
 */
async function drained(boss: PgBoss): Promise<boolean> {
  return (await boss.getQueueSize(PGBOSS_BENCH_QUEUE)) === 0;
}
