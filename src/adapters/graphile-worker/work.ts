import { setTimeout as sleep } from 'node:timers/promises';
import { type Job, type RunnerOptions, run } from 'graphile-worker';
import type { DeliveryHandler, WorkOptions } from '../../port/delivery.js';
import { afterGraphileWrite } from './after-write.js';
import { DRILL_TASK, type GraphileContext } from './context.js';
import { applicationName, graphileWorkerId } from './identity.js';
import { graphileLogger } from './logger.js';
import { UNFINISHED } from './sql.js';
import { drillTask, type Settled } from './task.js';

/*
 * A worker is graphile's own run(): its task list holds the one drill task,
 * concurrency 1, polling every pollMs, signals left to the drill
 * (noHandleSignals), under a worker id of this process's own (see identity.ts)
 * so the coordinator can name it to forceUnlockWorkers. graphile writes each
 * job's end itself (completeJob or failJob); on its job:complete event, after
 * that write, the adapter finishes a review (see task.ts), reads from the
 * history whether graphile's write landed, and tells the drill.
 */

/** Stops the runner once asked to, or once the work is done (maxJobs, or drained). */
async function waitForEnd(ctx: GraphileContext, options: WorkOptions, done: AbortSignal): Promise<void> {
  const pool = ctx.pools.get(applicationName('worker', 'watch'), 1);
  while (!options.stop.aborted && !done.aborted) {
    if (options.exitWhenDrained && (await pool.query<{ n: number }>(UNFINISHED(ctx.schema))).rows[0]?.n === 0) return;
    await sleep(Math.max(options.pollMs, 50), undefined, { signal: AbortSignal.any([options.stop, done]) }).catch(() => undefined);
  }
}

/** Hosts graphile's run() around the drill's handler until stopped, maxJobs are done, or (exitWhenDrained) nothing is left. */
export async function work(ctx: GraphileContext, handler: DeliveryHandler, options: WorkOptions): Promise<{ processed: number }> {
  const workerId = graphileWorkerId(options.workerId);
  const settled = new Map<string, Settled>();
  const pending = new Set<Promise<void>>();
  const enough = new AbortController();
  let processed = 0;
  const runnerOptions: RunnerOptions & { workerId: string } = {
    pgPool: ctx.pools.get(applicationName('worker', workerId), 4),
    schema: ctx.schema,
    concurrency: 1,
    pollInterval: options.pollMs,
    noHandleSignals: true,
    workerId,
    logger: graphileLogger((level, message) => options.log({ event: 'graphile', level, message })),
    taskList: { [DRILL_TASK]: drillTask(ctx, handler, options, settled) },
  };
  // No cron items: run() would otherwise read a `crontab` file from the working directory.
  const runner = await run(runnerOptions, undefined, []);
  runner.events.on('job:complete', ({ job }: { job: Job }) => {
    const ended = settled.get(String(job.id));
    settled.delete(String(job.id));
    if (!ended) return;
    const after = afterGraphileWrite(ctx, workerId, ended, options)
      .catch((error: unknown) =>
        options.log({ event: 'settle-failed', jobId: ended.claim.jobId, error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        pending.delete(after);
        processed++;
        if (options.maxJobs > 0 && processed >= options.maxJobs) enough.abort();
      });
    pending.add(after);
  });
  try {
    await Promise.race([waitForEnd(ctx, options, enough.signal), runner.promise]);
  } finally {
    await runner.stop().catch(() => undefined);
    await runner.promise.catch(() => undefined);
    await Promise.allSettled([...pending]);
  }
  return { processed };
}
