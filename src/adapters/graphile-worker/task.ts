import type { JobHelpers } from 'graphile-worker';
import { utc } from '../../kernel/clock.js';
import type { Claim, DeliveryHandler, Settlement, WorkOptions } from '../../port/delivery.js';
import type { GraphileContext } from './context.js';

/*
 * The drill's one task. graphile settles a job by how its task ends: a return
 * completes it (the row is deleted), a throw fails it (failJob: another attempt
 * after exp(least(attempts, 10)) s, or none left). So each settlement becomes
 * a return or a throw:
 *   done        -> return
 *   retry       -> throw the error (on the last attempt its text says so)
 *   review      -> throw; once failJob has released the row, the worker fails it
 *   compensate     for good (permanentlyFailJobs): graphile has no review, and no
 *                  compensation hand-off, so a job whose steps must be undone goes
 *                  to a person with that reason
 *   lease_lost  -> throw: failJob only matches a row still locked by this worker,
 *                  so it changes nothing when another holds the job
 * A handler that crashes is the drill's bug: logged, and thrown (graphile has no
 * way to leave a job locked but to hang).
 */

/** What a task left for after graphile's write: the claim, how the handler settled it. */
export interface Settled {
  claim: Claim;
  settlement: Settlement | null;
}

/** The claim graphile handed this worker, in the drill's words: the epoch is `attempts`, which get_job raised. */
export function claimOf(job: JobHelpers['job'], holder: string, lockHeldMs: number): Claim {
  const stored = job.payload as { action?: unknown; payload?: unknown } | null;
  return {
    jobId: String(job.id),
    key: job.key ?? '',
    action: String(stored?.action ?? ''),
    payload: typeof stored?.payload === 'string' ? stored.payload : '{}',
    maxAttempts: job.max_attempts,
    attempt: job.attempts,
    epoch: job.attempts,
    holder,
    token: null,
    // No lease in graphile: its lock ends at the sweep (4 h), or at the drill's lease where the coordinator frees it.
    leaseUntil: job.locked_at ? utc(new Date(job.locked_at).getTime() + lockHeldMs) : null,
  };
}

/** The error graphile's failJob stores for a settlement that is not `done`. */
export function failureText(claim: Claim, settlement: Exclude<Settlement, { kind: 'done' }>): string {
  switch (settlement.kind) {
    case 'retry':
      return claim.attempt >= claim.maxAttempts
        ? `retries exhausted after ${claim.attempt} of ${claim.maxAttempts} attempts: ${settlement.error}`
        : settlement.error;
    case 'review':
      return settlement.reason;
    case 'compensate':
      return `compensation needed (graphile-worker has no hand-off to a coordinator; a person must undo the steps): ${settlement.reason}`;
    case 'lease_lost':
      return `lease lost${settlement.step ? ` at step ${settlement.step}` : ''}`;
    default: {
      const unreachable: never = settlement;
      return String(unreachable);
    }
  }
}

/** The task function: runs one delivery through the drill's handler and ends as graphile must to settle it. */
export function drillTask(
  ctx: GraphileContext,
  handler: DeliveryHandler,
  options: WorkOptions,
  settled: Map<string, Settled>,
): (payload: unknown, helpers: JobHelpers) => Promise<void> {
  return async (_payload, helpers) => {
    const claim = claimOf(helpers.job, options.workerId, ctx.lockHeldMs);
    options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
    const lost = new AbortController();
    // No renewal exists to refuse: the attempt's deadline is the only way this holder loses the job from its side.
    const deadline = setTimeout(() => lost.abort(), options.maxAttemptMs);
    deadline.unref();
    let settlement: Settlement;
    try {
      settlement = await handler({ ...claim, signal: lost.signal, saga: await ctx.saga.logFor(claim) });
    } catch (error) {
      settled.set(claim.jobId, { claim, settlement: null });
      options.log({ event: 'handler-crashed', jobId: claim.jobId, error: error instanceof Error ? error.message : String(error) });
      throw new Error('the drill handler crashed (a bug in the drill, not a job failure)');
    } finally {
      clearTimeout(deadline);
    }
    settled.set(claim.jobId, { claim, settlement });
    if (settlement.kind !== 'done') throw new Error(failureText(claim, settlement));
  };
}
