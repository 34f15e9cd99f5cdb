import { utc } from '../../../kernel/clock.js';
import { defaultRelease } from '../../../port/release.js';
import type { Actor } from '../../../port/states.js';
import type { JobRow } from '../../job.js';
import { LEASE_INDEX } from '../schema.js';
import { type Db, statement } from '../store.js';
import { appendEvent } from './append-event.js';

/** Where an expired lease's job goes by default (retry, or review with no attempts left); re-exported for the sweep's callers. */
export { defaultRelease };

/** Who sweeps expired leases, and when. */
export interface SweepInput {
  now: number;
  /** A lease counts as expired only this long after its end: slack for clock skew between processes. */
  skewMarginMs: number;
  actor: Actor;
  worker: string | null;
}

/** The look-up of expired leases. From the lease index (schema.ts): only running jobs whose lease ended are read, however many run or wait. */
export const EXPIRED_LEASES_SQL = `
SELECT * FROM agent_jobs INDEXED BY ${LEASE_INDEX}
WHERE status = 'running' AND lease_until < @cutoff
ORDER BY id`;

// Guarded by the fence read before, and by the expiry itself, so a heartbeat
// that just renewed the lease (or a new claim) cannot be overwritten.
const RELEASE = `
UPDATE agent_jobs
SET status = @to, leased_by = NULL, lease_until = NULL, next_run_at = @at, updated_at = @at,
    review_reason = CASE WHEN @to = 'review' THEN @reason ELSE review_reason END,
    outcome = CASE WHEN @to = 'review' THEN 'review' ELSE outcome END
WHERE id = @id AND status = 'running' AND lease_fence = @fence AND lease_until < @cutoff`;

/** Running jobs whose lease expired (by more than the skew margin). */
export function expiredLeases(db: Db, now: number, skewMarginMs: number): JobRow[] {
  return statement(db, EXPIRED_LEASES_SQL).all({ cutoff: utc(now - skewMarginMs) }) as JobRow[];
}

/**
 * Takes one expired lease back, to `to`, if it is still the same expired lease
 * (same fence); false when someone got there first. Run inside a write transaction.
 */
export function releaseExpiredLease(
  db: Db,
  job: Pick<JobRow, 'id' | 'lease_fence' | 'attempts'>,
  release: SweepRelease,
  input: SweepInput,
  recorded = true,
): boolean {
  const at = utc(input.now);
  const changed = statement(db, RELEASE).run({
    id: job.id,
    fence: job.lease_fence,
    to: release.to,
    at,
    reason: release.reason,
    cutoff: utc(input.now - input.skewMarginMs),
  }).changes;
  if (changed === 0) return false;
  if (!recorded) return true;
  appendEvent(db, {
    jobId: job.id,
    kind: 'transition',
    from: 'running',
    to: release.to,
    attempt: job.attempts,
    fence: job.lease_fence,
    worker: input.worker,
    actor: input.actor,
    reason: release.reason,
    at,
  });
  return true;
}

/** Where a swept job goes, and why (the reference: retry, or review on its last attempt). */
export interface SweepRelease {
  to: 'retry' | 'review' | 'done';
  reason: string;
}

/** What a sweep does, one rule each: the reference's are REFERENCE_SWEEP_RULES; a broken variant differs in the one it gets wrong. */
export interface SweepRules {
  /** Where an expired lease's job goes. */
  release(job: JobRow): SweepRelease;
  /** Whether the release is written to the history. */
  recorded: boolean;
}

export const REFERENCE_SWEEP_RULES: SweepRules = { release: defaultRelease, recorded: true };

/** A sweep made by `rules` (each rule not given is the reference's). */
export function sweepWith(given: Partial<SweepRules>): (db: Db, input: SweepInput) => Array<{ jobId: number; to: SweepRelease['to'] }> {
  const rules: SweepRules = { ...REFERENCE_SWEEP_RULES, ...given };
  return (db, input) => {
    const released: Array<{ jobId: number; to: SweepRelease['to'] }> = [];
    for (const job of expiredLeases(db, input.now, input.skewMarginMs)) {
      const release = rules.release(job);
      if (releaseExpiredLease(db, job, release, input, rules.recorded)) released.push({ jobId: job.id, to: release.to });
    }
    return released;
  };
}

/**
 * Takes back every job whose lease expired (its worker died, hung, or lost the
 * race with its own lease): to `retry`, or to `review` when it has no attempts
 * left. Run inside the caller's write transaction. Returns the jobs released.
 */
export const sweepExpiredLeases = sweepWith(REFERENCE_SWEEP_RULES);
