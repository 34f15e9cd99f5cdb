import { failpoint, reportLease, useClock } from '../faults/failpoint.js';
import { type Clock, utc } from '../kernel/clock.js';
import { jsonLogger } from '../kernel/log.js';
import type { Random } from '../kernel/random.js';
import { secretsInPayload } from '../kernel/redact.js';
import type { DeliveryHandler } from '../port/delivery.js';
import type { RetryDelayPolicy } from '../port/retry-delay.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import type { WorldPort } from '../saga/world-port.js';
import { DeliveryReports } from './delivery-reports.js';
import { runAction } from './run-action.js';
import { settleFailure } from './settle-failure.js';

export interface WorkerOptions {
  /** The queue implementation under test, and where its queue is (`--store`). */
  queue: QueueUnderDrill;
  locator: string;
  id: string;
  effectLog: string;
  clock: Clock;
  random: Random;
  leaseMs: number;
  skewMarginMs: number;
  retryDelay: RetryDelayPolicy;
  /** How long to wait before looking again when nothing is ready. */
  pollMs: number;
  /** Stop once no job is pending, retrying or running. */
  exitWhenDrained: boolean;
  /** Stop after this many jobs (0: no limit). */
  maxJobs: number;
  /** Aborted to stop after the current job (SIGTERM). */
  stop: AbortSignal;
  /** An attempt keeps its lease for this long at most (see WorkOptions.maxAttemptMs). */
  maxAttemptMs: number;
  /** The world that plan jobs call; plan jobs go to review without one. */
  world: WorldPort | null;
  /** How long a call to the world waits for its answer (ConnectOptions.callTimeoutMs). @default 0 */
  callTimeoutMs?: number;
}

/**
 * A worker process: the queue's own consumption loop (the adapter's), around
 * the drill's handler. The handler stops at the named failpoints, runs the job
 * (a plan through the transaction sketch's saga runtime, or a demo action), verifies it
 * against evidence and says how to settle it; the queue makes that one write,
 * fenced by the claim. A refused write is the queue's to record; the worker
 * logs it and moves on.
 */
export async function runWorker(options: WorkerOptions): Promise<{ processed: number }> {
  const now = () => utc(options.clock.now());
  const log = jsonLogger(`worker:${options.id}`, now);
  // The harness measures this clock before any stamp of it reaches the queue (src/kernel/time-base.ts).
  useClock(options.clock);
  const queue = await options.queue.connect(options.locator, {
    clock: options.clock,
    random: options.random,
    leaseMs: options.leaseMs,
    skewMarginMs: options.skewMarginMs,
    retryDelay: options.retryDelay,
    ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
  });
  // A worker that talks to a world runs plans: load that code now, not while it holds its first lease.
  if (options.world) await import('./run-plan-job.js');
  // Its first line says it is up (the drill's watchdog does not count a start as the queue's time: see supervise.ts).
  log({ event: 'started', pid: process.pid, leaseMs: options.leaseMs });
  const reports = new DeliveryReports(options.world);
  let processed = 0;
  try {
    ({ processed } = await queue.work(drillHandler(options, now, reports), {
      workerId: options.id,
      stop: options.stop,
      pollMs: options.pollMs,
      exitWhenDrained: options.exitWhenDrained,
      maxJobs: options.maxJobs,
      maxAttemptMs: options.maxAttemptMs,
      beforeRenewal: (claim) => failpoint('heartbeat', { worker: options.id, jobId: claim.jobId, jobKey: claim.key, attempt: claim.attempt }),
      // Each lease granted, told to the harness as it is applied: what the judge places the lease's true end by.
      onLease: (claim, leaseUntil, by) =>
        reportLease({ job: claim.jobId, attempt: claim.attempt, epoch: claim.epoch, worker: claim.holder, leaseUntil, by }),
      onQueueWrite: (claim, write, applied) => {
        log({ event: 'queue-writes', jobId: claim.jobId, attempt: claim.attempt, write });
        reports.queueWrites(claim, write, applied);
      },
      onSettled: (claim, settlement, write) => {
        if (write) reports.wrote(claim, settlement, write.ok);
        const secrets = secretsInPayload(parsedOrNull(claim.payload));
        log(
          {
            event: `settled-${settlement.kind}`,
            jobId: claim.jobId,
            attempt: claim.attempt,
            settlement,
            stored: write?.ok ?? false,
            ...(write && !write.ok ? { refused: write.refused } : {}),
          },
          secrets,
        );
      },
      log: (line) => log(line),
    }));
  } finally {
    await reports.sent();
    await queue.close();
    log({ event: 'stopped', processed });
  }
  return { processed };
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/** The drill's side of every delivery: the after_claim point, then the plan or the demo action; the world hears when it began and what it will write. */
function drillHandler(options: WorkerOptions, now: () => string, reports: DeliveryReports): DeliveryHandler {
  const handle = planOrAction(options, now);
  return async (delivery) => {
    await reports.began(delivery);
    const settlement = await handle(delivery);
    await reports.writing(delivery, settlement);
    return settlement;
  };
}

function planOrAction(options: WorkerOptions, now: () => string): DeliveryHandler {
  return async (delivery) => {
    const payload = (parsedOrNull(delivery.payload) ?? {}) as Record<string, unknown>;
    const secrets = secretsInPayload(payload);
    try {
      await failpoint('after_claim', { worker: options.id, jobId: delivery.jobId, jobKey: delivery.key, attempt: delivery.attempt });
    } catch (error) {
      // Nothing has touched the world yet: the attempt failed, and the matrix decides what follows.
      return settleFailure(error, 'none', secrets);
    }
    if (delivery.action === 'plan') {
      // Loaded on the first plan job: a worker of simple jobs never pays for zod and the saga code.
      const { runPlanJob } = await import('./run-plan-job.js');
      return runPlanJob(delivery, payload, { world: options.world, secrets, rules: options.queue.sagaRules });
    }
    return runAction(delivery, payload, { effectLog: options.effectLog, secrets, now });
  };
}
