import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import { secretsInPayload, storableError } from '../../kernel/redact.js';
import type { SagaStore } from '../../port/checkpoint.js';
import type { Claim, DeliveryHandler, Settlement, WorkOptions } from '../../port/delivery.js';
import { openBoss, QUEUE_NAME } from './boss.js';
import { claimOfFetched } from './claim.js';
import { configureQueue } from './configure-queue.js';
import { watchExpiry } from './expiry-watch.js';
import { MAINTENANCE_INTERVAL_SECONDS, type PgBossSettings } from './mapping.js';
import { settlePgBoss } from './settle.js';

/*
 * A worker process on pg-boss: pg-boss's own loop (`boss.work()`, polling
 * every pollingIntervalSeconds, one job a fetch) around the drill's handler,
 * and beside it a second instance that only supervises (maintenance every
 * second: it fails jobs whose expireIn has passed, which sends them to retry or
 * to failed). Workers supervise because they are the processes a pg-boss
 * deployment runs all the time; producers and observers come and go and do
 * not. pg-boss lets one instance at a time maintain (its version row's
 * maintained_on), however many supervise.
 *
 * What pg-boss does around the handler, and the drill shows: it races the
 * handler against the job's expireIn and, when that passes, fails the job
 * while the handler keeps running (timgit/pg-boss#555); it never renews a
 * lease (no heartbeat in 10.x, so `beforeRenewal`, the heartbeat fault point,
 * is never called); and when the handler returns it writes complete itself.
 * The adapter makes the settlement's write inside the handler, to know what
 * pg-boss answered; pg-boss's own complete that follows then matches nothing
 * (the job is completed, failed, or waits at least a second to retry).
 * pg-boss's own fail at expireIn is told to the world as it goes out
 * (expiry-watch.ts).
 */

export interface WorkContext {
  url: string;
  schema: string;
  pool: pg.Pool;
  saga: SagaStore;
  settings: PgBossSettings;
}

const UNFINISHED = "SELECT count(*)::int AS n FROM job WHERE name = $1 AND state < 'completed'";

async function drained(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ n: number }>(UNFINISHED, [QUEUE_NAME]);
  return rows[0]?.n === 0;
}

/** Hosts one worker until stopped, drained, or done with maxJobs. */
export async function workPgBoss(ctx: WorkContext, handler: DeliveryHandler, options: WorkOptions): Promise<{ processed: number }> {
  const restamped = await configureQueue(ctx.pool, ctx.settings);
  options.log({ event: 'pg-boss-configured', ...ctx.settings, restamped });
  const worker = openBoss(ctx.url, ctx.schema, 'worker', options.workerId, { max: 3 });
  const supervisor = openBoss(ctx.url, ctx.schema, 'maintenance', options.workerId, {
    supervise: true,
    maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS,
  });
  worker.on('error', (error: Error) => options.log({ event: 'pg-boss-error', error: storableError(error) }));
  const finished = new AbortController();
  let processed = 0;
  const counted = () => {
    processed++;
    if (options.maxJobs > 0 && processed >= options.maxJobs) finished.abort();
  };
  try {
    await supervisor.start();
    await worker.start();
    await worker.work<object>(
      QUEUE_NAME,
      { pollingIntervalSeconds: ctx.settings.pollingIntervalSeconds, batchSize: 1, includeMetadata: true },
      async ([job]) => {
        if (!job) return undefined;
        const claim = claimOfFetched(job, options.workerId);
        // Set now, before pg-boss starts its race against expireIn: see expiry-watch.ts.
        const expiry = watchExpiry(ctx.pool, claim, job, options);
        try {
          return await deliver(worker, ctx, claim, handler, options, counted);
        } finally {
          expiry.stop();
        }
      },
    );
    const wake = AbortSignal.any([options.stop, finished.signal]);
    while (!wake.aborted) {
      await sleep(options.pollMs, undefined, { signal: wake }).catch(() => undefined);
      if (options.exitWhenDrained && !wake.aborted && (await drained(ctx.pool))) break;
    }
  } finally {
    await worker.offWork(QUEUE_NAME).catch(() => undefined);
    // Graceful: the job in hand is let finish, for as long as its lease; pg-boss fails what is still active after that.
    await worker.stop({ graceful: true, wait: true, timeout: Math.max(1_000, ctx.settings.expireInSeconds * 1000) }).catch(() => undefined);
    await supervisor.stop({ graceful: false, wait: true }).catch(() => undefined);
  }
  return { processed };
}

/** What the handler's promise becomes for pg-boss: resolved (pg-boss completes), or rejected (pg-boss fails). */
async function deliver(
  boss: PgBoss,
  ctx: WorkContext,
  claim: Claim,
  handler: DeliveryHandler,
  options: WorkOptions,
  counted: () => void,
): Promise<{ digest: string } | undefined> {
  options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
  const lost = new AbortController();
  // pg-boss never tells a handler its job is gone: the only loss the adapter can signal is the drill's own deadline.
  const deadline = setTimeout(() => {
    options.log({ event: 'attempt-deadline', jobId: claim.jobId, attempt: claim.attempt, maxAttemptMs: options.maxAttemptMs });
    lost.abort();
  }, options.maxAttemptMs);
  let settlement: Settlement;
  try {
    const saga = await ctx.saga.logFor(claim);
    settlement = await handler({ ...claim, signal: lost.signal, saga });
  } catch (error) {
    clearTimeout(deadline);
    options.log({ event: 'job-crashed', jobId: claim.jobId, error: storableError(error, secretsInPayload(parsedOrNull(claim.payload))) });
    counted();
    // A bug in the drill, not a job failure: leave the job. pg-boss gives up on this promise when the job's
    // expireIn passes and fails it then, as it would for a handler that hung.
    return new Promise<never>(() => {});
  }
  clearTimeout(deadline);
  const write = await settlePgBoss(boss, ctx.pool, claim, settlement).catch((error: unknown) => {
    // The server did not take the write (a lost connection): pg-boss fails the job when this promise rejects.
    options.log({ event: 'settle-failed', jobId: claim.jobId, attempt: claim.attempt, error: storableError(error) });
    throw error;
  });
  options.onSettled?.(claim, settlement, write);
  counted();
  // The attempt ran past its deadline: pg-boss fails the job (if still active, whoever holds it now).
  if (settlement.kind === 'lease_lost') throw new Error(`attempt ${claim.attempt} lost its job`);
  return settlement.kind === 'done' ? { digest: settlement.digest } : undefined;
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
