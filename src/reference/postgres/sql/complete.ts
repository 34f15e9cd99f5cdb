import { CLOCK, type NamedStatement, type Queryable, rows } from '../../../adapters/pg/queryable.js';
import { assertTransition } from '../../../port/states.js';
import { assertDigest } from '../../digest.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { FENCED_GUARD, writeUnderLease } from './write-under-lease.js';

/** Marks a held job done with its verified result digest (checked before anything is written), outcome `done`. Run in a transaction. */
export async function complete(db: Queryable, lease: Lease, resultDigest: string, leaseGuard?: string): Promise<LeaseWriteResult> {
  assertDigest(resultDigest);
  return writeUnderLease(
    db,
    lease,
    'worker',
    () => ({
      to: 'done',
      set: `status = 'done', result_digest = @digest, leased_by = NULL, lease_until = NULL, last_error = NULL, review_reason = NULL, outcome = 'done'`,
      params: { digest: resultDigest },
      reason: doneReason(resultDigest),
    }),
    { to: 'done', what: 'complete' },
    leaseGuard,
  );
}

// The one move the fast path writes, checked once: the statement records it with no code between.
assertTransition('running', 'done', 'worker');

/** The reason a done's history row gives. */
const doneReason = (digest: string) => `done, verified result ${digest.slice(0, 12)}`;

/**
 * The done as common table expressions (`held`, `completed`,
 * `complete_recorded`) for a statement to lead with: the job, locked under
 * the fencing guard while it is still running, marked done, and its history
 * row, stamped with the write's own clock. What the guard refuses matches no
 * row, and the caller's fallback (`complete`, in a transaction) records the
 * refusal as it always did; so does every state but running.
 */
export const COMPLETE_EXPRESSIONS = `
held AS (SELECT id, attempts FROM agent_jobs WHERE ${FENCED_GUARD} AND status = 'running' FOR NO KEY UPDATE),
completed AS (
  UPDATE agent_jobs AS j
  SET status = 'done', result_digest = @digest, leased_by = NULL, lease_until = NULL, last_error = NULL, review_reason = NULL,
      outcome = 'done', updated_at = clock.now
  FROM held, ${CLOCK}
  WHERE j.id = held.id
  RETURNING j.id, held.attempts, j.updated_at
),
complete_recorded AS (
  INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at)
  SELECT id, 'transition', 'running', 'done', attempts, @fence, @workerId, 'worker', @reason, updated_at FROM completed
  RETURNING job_id
)`;

/** The parameters COMPLETE_EXPRESSIONS names. */
export const completeParams = (lease: Lease, digest: string) => ({
  jobId: lease.jobId,
  workerId: lease.workerId,
  fence: lease.fence,
  digest,
  reason: doneReason(digest),
});

// The notification goes out with the commit, as wakeIdle's (./wake.ts): one job fewer running for a worker waiting to drain.
const COMPLETE_ONE: NamedStatement = {
  name: 'qd_complete_one',
  text: `
WITH ${COMPLETE_EXPRESSIONS}
SELECT pg_notify(current_schema(), '')::text AS woke FROM completed`,
};

/**
 * Marks a held, running job done in one statement (its own transaction, one
 * round trip); false when nothing matched, for the caller to run `complete`
 * in a transaction, which records a refusal or writes any other case as before.
 */
export async function completeOne(db: Queryable, lease: Lease, digest: string): Promise<boolean> {
  assertDigest(digest);
  return (await rows(db, COMPLETE_ONE, completeParams(lease, digest))).length === 1;
}
