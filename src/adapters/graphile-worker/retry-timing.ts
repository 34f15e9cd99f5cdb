import type { DrillDemands, DrillFit } from '../../port/adapter.js';

/*
 * graphile-worker's clock for retries, which no option changes: failJob sets
 * run_at = greatest(now(), run_at) + exp(least(attempts, 10)) seconds (its SQL,
 * dist/sql/failJob.js), so a job waits e^1 = 2.7 s after its first failure,
 * e^2 = 7.4 s after its second, 20 s after its third, and 6 h 7 min from the
 * tenth on. A drill's watchdog shorter than the longest of these would call a
 * job lost that graphile has only scheduled, and a deadline that leaves no room
 * for them would end a drill graphile is still running.
 */

/** Added to the longest delay: the worker's poll, its claim and its first write after the wait. */
export const RETRY_MARGIN_MS = 3_000;

const WHY = "graphile-worker's retry delay is exp(least(attempts, 10)) s, fixed in its SQL";

/** The delay graphile puts before the next attempt of a job whose attempt `attempts` failed. */
export function graphileRetryDelayMs(attempts: number): number {
  return Math.ceil(Math.exp(Math.min(attempts, 10)) * 1000);
}

/** Every delay a job with `maxAttempts` may wait: after attempt 1 .. maxAttempts - 1 (the last failure has none). */
function delaysOf(maxAttempts: number): number[] {
  return Array.from({ length: Math.max(0, maxAttempts - 1) }, (_, i) => graphileRetryDelayMs(i + 1));
}

/**
 * How long a drill must wait at least on graphile's clock: a watchdog longer
 * than the longest delay any of its jobs may wait (plus a margin), and a
 * deadline that adds every delay of the largest attempt budget to the
 * scenario's own. None for a drill whose jobs never retry.
 */
export function graphileAtLeast(demands: Pick<DrillDemands, 'maxAttempts' | 'timeoutMs'>): Extract<DrillFit, { ok: true }>['atLeast'] {
  const budget = Math.max(0, ...demands.maxAttempts);
  const delays = delaysOf(budget);
  if (delays.length === 0) return undefined;
  const total = delays.reduce((sum, ms) => sum + ms, 0);
  return { noProgressMs: Math.max(...delays) + RETRY_MARGIN_MS, timeoutMs: demands.timeoutMs + total, why: WHY };
}
