import { type Job, type MinimalJob, type Queue, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Random } from '../../kernel/random.js';
import { secretsInPayload, storableError } from '../../kernel/redact.js';
import type { RetryDelayPolicy } from '../../port/adapter.js';
import type { SagaStore } from '../../port/checkpoint.js';
import type { Claim, DeliveryHandler, WorkOptions } from '../../port/delivery.js';
import { retryDelayMs } from '../../port/retry-delay.js';
import { DrillWorker, type HeldDelivery } from './drill-worker.js';
import { drainDelayFor, MAX_STALLED_COUNT, stalledIntervalFor } from './fit.js';
import { parseJobData, type QueueKeys } from './job-data.js';
import { QUEUE_NAME } from './provision.js';
import { settleJob } from './settle.js';

/** What the work loop needs of its connection. */
export interface WorkContext {
  prefix: string;
  client: Redis;
  queue: Queue;
  keys: QueueKeys;
  saga: SagaStore;
  leaseMs: number;
  retryDelay: RetryDelayPolicy;
  random: Random;
}

/** The delivery BullMQ handed over, in the drill's words: the epoch is `ats`, the starts BullMQ counted. */
export function claimOf(job: Job, token: string, workerId: string, leaseMs: number): Claim {
  const data = parseJobData(JSON.stringify(job.data));
  return {
    jobId: job.id ?? '',
    key: data.key,
    action: data.action,
    payload: data.payload,
    maxAttempts: job.opts.attempts ?? data.maxAttempts,
    token,
    leaseUntil: new Date(Date.now() + leaseMs).toISOString(),
    attempt: job.attemptsStarted,
    epoch: job.attemptsStarted,
    holder: workerId,
  };
}

/** The delay before the next attempt, by the drill's policy for the attempt that just failed (BullMQ's `ats`). */
function drillBackoff(job: MinimalJob | undefined, context: WorkContext): number {
  // BullMQ passes its Job here; MinimalJob does not declare the start counter.
  const started = (job as { attemptsStarted?: number } | undefined)?.attemptsStarted ?? 1;
  return retryDelayMs(Math.max(started, 1), context.retryDelay, context.random);
}

/** Thrown out of the processor once the adapter made its own fenced write: BullMQ's Worker then moves nothing and fetches the next job. */
function leaveToBullmq(): Error {
  return new WaitingError('settled by the drill');
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/**
 * Hosts a worker: BullMQ's own Worker (its fetch loop, lock manager and
 * stalled checker) runs the drill's handler as its processor; the handler's
 * settlement is written by the processor itself through BullMQ's moves under
 * the lock token, so a refusal comes back as one.
 */
export async function runWorker(context: WorkContext, handler: DeliveryHandler, options: WorkOptions): Promise<{ processed: number }> {
  let processed = 0;
  const held = new Map<string, HeldDelivery>();
  let worker: DrillWorker | undefined;
  const stop = () => void worker?.close().catch(() => undefined);
  const processor = async (job: Job, token?: string) => {
    const claim = claimOf(job, token ?? '', options.workerId, context.leaseMs);
    const delivery: HeldDelivery = { claim, startedAt: Date.now(), lost: new AbortController() };
    held.set(claim.jobId, delivery);
    options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
    try {
      const saga = await context.saga.logFor(claim);
      const settlement = await handler({ ...claim, signal: delivery.lost.signal, saga });
      held.delete(claim.jobId);
      const write = await settleJob(job, claim.token ?? '', settlement, context.client, context.keys);
      options.onSettled?.(claim, settlement, write);
    } catch (error) {
      // A handler that throws is the drill's bug: the job is left, its lock runs out, the stalled checker takes it back.
      options.log({ event: 'job-crashed', jobId: claim.jobId, error: storableError(error, secretsInPayload(parsedOrNull(claim.payload))) });
    } finally {
      held.delete(claim.jobId);
    }
    processed++;
    if (options.maxJobs > 0 && processed >= options.maxJobs) stop();
    throw leaveToBullmq();
  };
  worker = new DrillWorker(QUEUE_NAME, processor, {
    connection: context.client,
    prefix: context.prefix,
    name: options.workerId,
    concurrency: 1,
    lockDuration: context.leaseMs,
    stalledInterval: stalledIntervalFor(context.leaseMs),
    maxStalledCount: MAX_STALLED_COUNT,
    drainDelay: drainDelayFor(options.pollMs),
    // The drill's policy counts attempts as started (a stalled start counts too), not BullMQ's attemptsMade (failures only).
    settings: { backoffStrategy: (_made: number, _type?: string, _err?: Error, job?: MinimalJob) => drillBackoff(job, context) },
  });
  worker.attach({
    held,
    maxAttemptMs: options.maxAttemptMs,
    beforeRenewal: options.beforeRenewal,
    onDeadline: (delivery) => {
      options.log({ event: 'attempt-deadline', jobId: delivery.claim.jobId, attempt: delivery.claim.attempt, maxAttemptMs: options.maxAttemptMs });
      held.delete(delivery.claim.jobId);
      delivery.lost.abort();
    },
  });
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds) {
      const delivery = held.get(jobId);
      if (!delivery) continue;
      options.log({ event: 'lease-lost', jobId, epoch: delivery.claim.epoch });
      delivery.lost.abort();
    }
  });
  worker.on('error', (error) => options.log({ event: 'worker-error', error: storableError(error) }));
  options.stop.addEventListener('abort', stop, { once: true });
  const drained = options.exitWhenDrained ? watchDrained(context.queue, options.pollMs, stop) : undefined;
  try {
    await worker.run();
  } finally {
    if (drained) clearInterval(drained);
    options.stop.removeEventListener('abort', stop);
    await worker.close();
  }
  return { processed };
}

/** Stops the worker once nothing waits, runs or is delayed for a retry. */
function watchDrained(queue: Queue, pollMs: number, stop: () => void): NodeJS.Timeout {
  let checking = false;
  return setInterval(
    async () => {
      if (checking) return;
      checking = true;
      try {
        const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'paused');
        if (Object.values(counts).every((n) => n === 0)) stop();
      } catch {
        // Redis busy or gone: the next tick asks again.
      } finally {
        checking = false;
      }
    },
    Math.max(50, pollMs),
  );
}
