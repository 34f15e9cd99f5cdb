import type { RetryDelayPolicy } from '../../port/adapter.js';

/*
 * How a drill's settings become pg-boss 10's own options. pg-boss counts in
 * whole seconds (`expireInSeconds`, `retryDelay` are integers in its tables),
 * so every duration is rounded up: a lease or a retry delay is never shorter
 * than the drill asked for, only longer by less than a second.
 */

/** pg-boss 10's floor for `expireInSeconds` (attorney.js: "must be at least every second"). */
export const MIN_EXPIRE_SECONDS = 1;
/** pg-boss 10's floor for `pollingIntervalSeconds` (attorney.js: MIN_POLLING_INTERVAL_MS 500). */
export const MIN_POLLING_SECONDS = 0.5;
/** pg-boss 10's floor for `maintenanceIntervalSeconds`, which the supervising instance uses: expired jobs are taken back within a second or two. */
export const MAINTENANCE_INTERVAL_SECONDS = 1;

/** The options one drill's queue runs with. */
export interface PgBossSettings {
  /** The lease: pg-boss fails an active job once `started_on + expire_in` has passed (maintenance), and races the handler against it. */
  expireInSeconds: number;
  /** Fixed delay before the next attempt, for a failed attempt and for an expired one alike. */
  retryDelaySeconds: number;
  pollingIntervalSeconds: number;
}

/**
 * The lease in pg-boss's whole seconds, rounded up (a 1.2 s lease becomes 2 s),
 * with room for one call timeout. pg-boss never renews: expireIn is a
 * handler's deadline, and pg-boss fails the job when it passes, whatever the
 * handler is doing. A queue with a heartbeat keeps a live handler's lease
 * while it waits out a slow call; a pg-boss user sets expireIn above the
 * longest a handler may wait. Without that room, a handler whose call timed
 * out (a lease's three quarters in the shipped scenarios), then reconciled and
 * settled, ended about as pg-boss's own timer fired, and which write landed
 * first was a race (timeout-effect-not-applied: retry→retry, once in three).
 */
export function expireInSecondsFor(leaseMs: number, callTimeoutMs = 0): number {
  return Math.max(MIN_EXPIRE_SECONDS, Math.ceil((leaseMs + callTimeoutMs) / 1000));
}

/**
 * The retry delay in pg-boss's whole seconds, rounded up, at least 1 s. Not 0
 * even when the drill asks for less: pg-boss's work() writes complete after
 * the handler returns, so a job failed by the adapter must not be fetchable
 * again before that write lands (src/adapters/pg-boss/work.ts).
 */
export function retryDelaySecondsFor(policy: RetryDelayPolicy): number {
  return Math.max(1, Math.ceil(policy.baseMs / 1000));
}

export function settingsFor(leaseMs: number, retry: RetryDelayPolicy, pollMs: number, callTimeoutMs = 0): PgBossSettings {
  return {
    expireInSeconds: expireInSecondsFor(leaseMs, callTimeoutMs),
    retryDelaySeconds: retryDelaySecondsFor(retry),
    pollingIntervalSeconds: Math.max(MIN_POLLING_SECONDS, pollMs / 1000),
  };
}

/**
 * What pg-boss really applies when a drill asks for `requested`: `retryBackoff:
 * false`, a fixed delay, no jitter. pg-boss's backoff mode
 * (`retry_delay * 2^min(16, retry_count + 1) / 2 * (1 + random())`, plans.js
 * failJobs) has a jitter that grows with the delay (up to the whole delay),
 * which RetryDelayPolicy's fixed `jitterMs` cannot state: declaring it would
 * either be false or so wide that retry-backoff could not fail. The fixed
 * delay is stated exactly.
 */
export function pgBossRetryPolicy(requested: RetryDelayPolicy): RetryDelayPolicy {
  const ms = retryDelaySecondsFor(requested) * 1000;
  return { baseMs: ms, capMs: ms, jitterMs: 0 };
}
