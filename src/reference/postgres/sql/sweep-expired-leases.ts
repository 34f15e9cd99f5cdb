import { CLOCK, firstRow, millis, type Queryable, rows } from '../../../adapters/pg/queryable.js';
import type { ExpiredLeaseRelease } from '../../../port/adapter.js';
import { defaultRelease } from '../../../port/release.js';
import type { Actor } from '../../../port/states.js';
import type { JobRow } from '../../job.js';
import { appendEvent } from './append-event.js';
import { JOB_COLUMNS } from './columns.js';
import { wakeIdle } from './wake.js';

export interface SweepInput {
  /** A lease counts as expired only this long after its end: slack for clock skew. */
  skewMarginMs: number;
  actor: Actor;
  worker: string | null;
}

/** What releasing an expired lease needs to know of it: which job, under which epoch. */
export type ExpiredJob = Pick<JobRow, 'id' | 'lease_fence' | 'attempts'>;

const EXPIRED_WHERE = `status = 'running' AND lease_until < clock_timestamp() - ${millis('@skewMarginMs')}`;

// The cutoff is read once, in a subquery: a volatile clock_timestamp() compared row by row cannot bound an index
// scan, so the sweep would read every running job's row; a value fixed for the statement lets the lease index
// (schema.ts) read only the running jobs whose lease ended.
const EXPIRED = `SELECT ${JOB_COLUMNS} FROM agent_jobs
WHERE status = 'running' AND lease_until < (SELECT clock_timestamp() - ${millis('@skewMarginMs')})
ORDER BY id`;

// The sweep locks what it takes back, and skips what another transaction has
// locked (another claimer sweeping it, a holder renewing it): claimers never
// wait on each other, and what one skips the other releases.
/** The claim's sweep: the expired leases, locked (exported for its plan's test). */
export const EXPIRED_LOCKED_SQL = `${EXPIRED} FOR NO KEY UPDATE SKIP LOCKED`;

// Guarded by the epoch read before and by the expiry itself, so a heartbeat
// that just renewed the lease, or a new claim, is never overwritten. Under READ
// COMMITTED a concurrent committed change is re-checked against this guard
// (EvalPlanQual) before the row is written.
const RELEASE = `
UPDATE agent_jobs
SET status = @to::text, leased_by = NULL, lease_until = NULL, next_run_at = clock.now, updated_at = clock.now,
    review_reason = CASE WHEN @to::text = 'review' THEN @reason::text ELSE review_reason END,
    outcome = CASE WHEN @to::text = 'review' THEN 'review' END
FROM ${CLOCK}
WHERE id = @id AND ${EXPIRED_WHERE} AND lease_fence = @fence
RETURNING attempts, lease_fence`;

/** Running jobs whose lease expired by more than the skew margin, by id. */
export async function expiredLeases(db: Queryable, skewMarginMs: number): Promise<JobRow[]> {
  return rows<JobRow>(db, EXPIRED, { skewMarginMs });
}

/**
 * Takes one expired lease back, to `release.to`, if it is still the same
 * expired lease (same epoch), recording it and waking idle workers; false
 * when it is not (renewed, released, claimed again). Run in the caller's transaction.
 */
export async function releaseExpiredLease(db: Queryable, job: ExpiredJob, release: ExpiredLeaseRelease, input: SweepInput): Promise<boolean> {
  const released = await firstRow<{ attempts: number; lease_fence: number }>(db, RELEASE, {
    id: job.id,
    fence: job.lease_fence,
    to: release.to,
    reason: release.reason,
    skewMarginMs: input.skewMarginMs,
  });
  if (!released) return false;
  await appendEvent(db, {
    jobId: job.id,
    kind: 'transition',
    from: 'running',
    to: release.to,
    attempt: released.attempts,
    fence: released.lease_fence,
    worker: input.worker,
    actor: input.actor,
    reason: release.reason,
  });
  // Ready again at once (or in review: no longer running, which a draining worker counts).
  await wakeIdle(db);
  return true;
}

/**
 * Takes back every job whose lease expired (to retry, or to review on its last
 * attempt), each recorded; run in the caller's transaction. Returns the jobs released.
 */
export async function sweepExpiredLeases(db: Queryable, input: SweepInput): Promise<Array<{ jobId: number; to: ExpiredLeaseRelease['to'] }>> {
  const released: Array<{ jobId: number; to: ExpiredLeaseRelease['to'] }> = [];
  for (const job of await rows<JobRow>(db, EXPIRED_LOCKED_SQL, { skewMarginMs: input.skewMarginMs })) {
    const release = defaultRelease(job);
    if (await releaseExpiredLease(db, job, release, input)) released.push({ jobId: job.id, to: release.to });
  }
  return released;
}
