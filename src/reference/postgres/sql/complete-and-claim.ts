import { firstRow, type NamedStatement, type Queryable } from '../../../adapters/pg/queryable.js';
import { assertDigest } from '../../digest.js';
import type { JobRow, Lease } from '../../job.js';
import { CLAIM_ANSWER, CLAIM_EXPRESSIONS, type ClaimAnswer, type ClaimInput, claimedJob } from './claim.js';
import { COMPLETE_EXPRESSIONS, completeParams } from './complete.js';

// The done, and the claim as a claim alone makes it (whether the done was written or refused: the worker would
// claim next anyway, as the SQLite store's completeAndClaim does). The two lock different rows (the claim skips any
// locked, and the held job is running, not ready), so they never wait on each other. Notified only when the done
// was written and the claim took nothing (a claim alone wakes nobody: ./wake.ts): a done's notification is for a
// worker waiting to drain, and a done that hands its worker the next job leaves as many running as before. It matters:
// PostgreSQL serialises every notifying commit on one lock of the database (measured, 4 workers on a backlog of
// 10,000: a committer waited on it half the time).

const COMPLETE_AND_CLAIM: NamedStatement = {
  name: 'qd_complete_and_claim',
  text: `
WITH ${COMPLETE_EXPRESSIONS},
${CLAIM_EXPRESSIONS}
SELECT completed.id IS NOT NULL AS done, CASE WHEN completed.id IS NOT NULL AND claimed.id IS NULL THEN pg_notify(current_schema(), '')::text END AS woke,
       ${CLAIM_ANSWER}
FROM (SELECT 1) AS one LEFT JOIN completed ON true LEFT JOIN claimed ON true`,
};

/**
 * A worker's done and its next claim in one statement, as BullMQ's
 * moveToFinished hands its worker the next job: one round trip a job where
 * there were two transactions of four to six statements. `done` false: the
 * done matched nothing (the caller falls back to `complete`, which records a
 * refusal); `next` null with `sweepDue`: expired leases wait, and the caller
 * claims after sweeping them (claimAfterSweep).
 */
export async function completeAndClaimOne(
  db: Queryable,
  lease: Lease,
  digest: string,
  claim: ClaimInput,
): Promise<{ done: boolean; next: JobRow | null; sweepDue: boolean }> {
  assertDigest(digest);
  // Both halves' @workerId are one parameter: the claimer must be the lease's holder.
  if (claim.workerId !== lease.workerId) throw new RangeError(`completeAndClaim: ${claim.workerId} claims for ${lease.workerId}`);
  const answer = await firstRow<ClaimAnswer & { done: boolean }>(db, COMPLETE_AND_CLAIM, { ...completeParams(lease, digest), ...claim });
  return { done: answer?.done === true, next: claimedJob(answer), sweepDue: answer?.sweep_due === true };
}
