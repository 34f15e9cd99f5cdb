import type { DrillDemands, DrillFit } from '../../port/adapter.js';

/** BullMQ's lock manager renews every lockDuration/2 on a timer; below this a loaded 2-core machine misses renewals. */
export const MIN_LOCK_MS = 200;

/** The stalled checker's period: a quarter of the lease, so a dead holder's job is back within about 1.5 leases. */
export function stalledIntervalFor(leaseMs: number): number {
  return Math.max(50, Math.floor(leaseMs / 4));
}

/** BullMQ's `drainDelay` is whole seconds of a blocking pop: the idle poll, rounded up. */
export function drainDelayFor(pollMs: number): number {
  return Math.max(1, Math.ceil(pollMs / 1000));
}

/** BullMQ's own default: one stall is forgiven (the job goes back to wait), the next fails it. */
export const MAX_STALLED_COUNT = 1;

/**
 * The Worker and job options the drill's demands map onto, or why BullMQ
 * cannot honour them. Attempts stay per job (`attempts` = the job's budget).
 * Stalls do not use up `attempts` in BullMQ: they are bounded by the worker's
 * `maxStalledCount`, left at BullMQ's default, and `maxStartedAttempts` (per
 * worker, not per job) is left unset: the drill shows what that does.
 */
export function fitBullmq(demands: DrillDemands): DrillFit {
  if (demands.leaseMs < MIN_LOCK_MS) {
    return { ok: false, reason: `BullMQ cannot hold a lease of ${demands.leaseMs} ms: its lock renewal needs lockDuration >= ${MIN_LOCK_MS} ms` };
  }
  const budgets = [...new Set(demands.maxAttempts)];
  if (budgets.some((n) => !Number.isInteger(n) || n < 1)) {
    return { ok: false, reason: `BullMQ's attempts must be a whole number >= 1 (asked: ${budgets.join(', ')})` };
  }
  return {
    ok: true,
    mapping: {
      lockDuration: demands.leaseMs,
      lockRenewTime: Math.floor(demands.leaseMs / 2),
      stalledInterval: stalledIntervalFor(demands.leaseMs),
      maxStalledCount: MAX_STALLED_COUNT,
      maxStartedAttempts: 'unset (a per-worker limit; budgets are per job)',
      attempts: budgets.length === 1 ? budgets[0]! : `per job (${budgets.join(', ')})`,
      backoff: `custom 'drill': ${demands.retryDelay.baseMs} ms doubling to ${demands.retryDelay.capMs} ms, + 0..${demands.retryDelay.jitterMs} ms jitter`,
      drainDelaySeconds: drainDelayFor(demands.pollMs),
      removeOnComplete: false,
      removeOnFail: false,
      review: "the failed set (UnrecoverableError, or attempts used up); Job.retry() is a person's requeue",
      compensation: 'none: BullMQ has no compensating state',
    },
  };
}
