import { setTimeout as sleep } from 'node:timers/promises';
import { utc, type Clock } from '../kernel/clock.js';
import type { LeaseWriteResult } from '../queue/job.js';
import type { Random } from '../kernel/random.js';
import type { EffectKind } from '../queue/recovery.js';
import { secretsInPayload, storableError } from '../kernel/redact.js';
import type { RetryDelayPolicy } from '../queue/retry-delay.js';
import type { QueueImpl } from '../adapters/registry.js';
import { SqliteQueue, type Claimed } from '../adapters/sqlite/sqlite-queue.js';
import { failpoint } from '../faults/failpoint.js';
import { ACTIONS, type ActionContext } from './actions.js';
import { jsonLogger } from '../kernel/log.js';
import type { WorldPort } from '../saga/world-port.js';

export interface WorkerOptions {
  store: string;
  /** The queue implementation under test. */
  queue: QueueImpl;
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
  /**
   * An attempt renews its lease for this long at most: a step that hangs (while
   * the process lives on and could heartbeat forever) loses its lease and the
   * job is taken back, instead of being held until someone notices.
   */
  maxAttemptMs: number;
  /** The world that plan jobs call; plan jobs go to review without one. */
  world: WorldPort | null;
}

/**
 * A worker: claims the oldest ready job, runs it while renewing the lease,
 * verifies the result against evidence, then completes it, or routes the failure
 * by the recovery matrix. Every write is fenced by the claim's lease; a refused
 * write is logged and recorded by the store, and the worker moves on.
 */
export async function runWorker(options: WorkerOptions): Promise<{ processed: number }> {
  const queue = options.queue.open(options.store, {
    clock: options.clock,
    random: options.random,
    leaseMs: options.leaseMs,
    skewMarginMs: options.skewMarginMs,
    retryDelay: options.retryDelay,
  });
  const now = () => utc(options.clock.now());
  const log = jsonLogger(`worker:${options.id}`, now);
  log({ event: 'started', pid: process.pid, leaseMs: options.leaseMs });
  // A worker that talks to a world runs plans: load that code now, not while it holds its first lease.
  if (options.world) await import('./run-plan-job.js');
  let processed = 0;
  try {
    while (!options.stop.aborted && (options.maxJobs === 0 || processed < options.maxJobs)) {
      const claimed = queue.claim(options.id);
      if (!claimed) {
        if (options.exitWhenDrained && isDrained(queue)) break;
        await sleep(options.pollMs, undefined, { signal: options.stop }).catch(() => undefined);
        continue;
      }
      try {
        await runOne(queue, claimed, options, log, now);
      } catch (error) {
        // A bug, not a job failure: the lease will expire and the job be recovered; this worker goes on.
        log({ event: 'job-crashed', jobId: claimed.job.id, error: storableError(error, secretsInPayload(safePayload(claimed.job.payload_json))) });
      }
      processed++;
    }
  } finally {
    queue.close();
    log({ event: 'stopped', processed });
  }
  return { processed };
}

function safePayload(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

function isDrained(queue: SqliteQueue): boolean {
  const counts = queue.counts();
  return counts.pending + counts.retry + counts.running === 0;
}

async function runOne(
  queue: SqliteQueue,
  claimed: Claimed,
  options: WorkerOptions,
  log: ReturnType<typeof jsonLogger>,
  now: () => string,
): Promise<void> {
  const { job, lease } = claimed;
  const payload = JSON.parse(job.payload_json) as Record<string, unknown>;
  const secrets = secretsInPayload(payload);
  log({ event: 'claimed', jobId: job.id, attempt: job.attempts, fence: lease.fence }, secrets);
  const leaseLost = new AbortController();
  // Renew well before expiry, from the claim on; a refused renewal means someone else owns the job now.
  const claimedAt = options.clock.now();
  const renewal = setInterval(async () => {
    if (leaseLost.signal.aborted) return;
    if (options.clock.now() - claimedAt > options.maxAttemptMs) {
      log({ event: 'attempt-deadline', jobId: job.id, attempt: job.attempts, maxAttemptMs: options.maxAttemptMs });
      leaseLost.abort();
      return;
    }
    await failpoint('heartbeat', { worker: options.id, jobId: job.id, attempt: job.attempts });
    if (leaseLost.signal.aborted) return;
    const renewed = queue.heartbeat(lease);
    if (!renewed.ok) {
      log({ event: 'lease-lost', jobId: job.id, fence: lease.fence, current: renewed.current });
      leaseLost.abort();
    }
  }, Math.max(10, Math.floor(options.leaseMs / 3)));
  try {
    try {
      await failpoint('after_claim', { worker: options.id, jobId: job.id, attempt: job.attempts });
    } catch (error) {
      // Nothing has touched the world yet: the attempt failed, and the matrix decides what follows.
      const failed = queue.fail(claimed, error, 'none', secrets);
      log({ event: 'failed', jobId: job.id, attempt: job.attempts, decision: failed.decision.action, error: storableError(error, secrets), stored: failed.write?.ok ?? false }, secrets);
      return;
    }
    if (job.action === 'plan') {
      // Loaded on the first plan job: a worker of simple jobs never pays for zod and the saga code.
      const { runPlanJob } = await import('./run-plan-job.js');
      await runPlanJob(queue, claimed, payload, { worker: options.id, world: options.world, clock: options.clock, secrets, log, rules: options.queue.sagaRules });
    } else {
      await runAction(queue, claimed, payload, secrets, { ...options, signal: leaseLost.signal }, log, now);
    }
  } finally {
    clearInterval(renewal);
  }
}

/** Runs one of the demo actions (not a plan), verifies it, and completes or routes its failure. */
async function runAction(
  queue: SqliteQueue,
  claimed: Claimed,
  payload: Record<string, unknown>,
  secrets: readonly string[],
  options: WorkerOptions & { signal: AbortSignal },
  log: ReturnType<typeof jsonLogger>,
  now: () => string,
): Promise<void> {
  const { job, lease } = claimed;
  const action = ACTIONS[job.action];
  const ctx: ActionContext = { job, payload, workerId: options.id, effectLog: options.effectLog, now, signal: options.signal };
  try {
    if (!action) throw new Error(`unknown action ${JSON.stringify(job.action)}`);
    const output = await action.run(ctx);
    const digest = action.verify(ctx, output);
    await failpoint('after_verify', { worker: options.id, jobId: job.id, attempt: job.attempts });
    await failpoint('before_complete', { worker: options.id, jobId: job.id, attempt: job.attempts });
    const write = queue.complete(lease, digest);
    log({ event: write.ok ? 'done' : 'complete-refused', jobId: job.id, attempt: job.attempts, digest }, secrets);
  } catch (error) {
    const effect = (payload.effect as EffectKind | undefined) ?? action?.effect ?? 'non_idempotent';
    const failed = queue.fail(claimed, error, effect, secrets);
    let write: LeaseWriteResult | null = failed.write;
    if (failed.decision.action === 'reconcile') {
      // This worker cannot ask the world about this action's outcome: a person must.
      write = queue.review(lease, 'unknown outcome of a non-idempotent effect; reconciliation could not settle it', storableError(error, secrets));
    }
    log({ event: 'failed', jobId: job.id, attempt: job.attempts, decision: failed.decision.action, error: storableError(error, secrets), stored: write?.ok ?? false }, secrets);
  }
}
