import { CLOCK, firstRow, millis, type Queryable } from '../../../adapters/pg/queryable.js';
import type { JobRow } from '../../job.js';
import { appendEvent } from './append-event.js';
import { jobColumns } from './columns.js';
import { sweepExpiredLeases } from './sweep-expired-leases.js';

export interface ClaimInput {
  workerId: string;
  leaseMs: number;
  skewMarginMs: number;
}

// The oldest ready job, locked, skipping any another claimer has locked: no
// two claimers take one job, and none waits for another. The lock is taken
// before LIMIT (the plan is Limit over LockRows), so a row a concurrent commit
// made unready fails its re-check and the next one is taken instead.
// FOR NO KEY UPDATE, the lock UPDATE itself takes, so the history's foreign
// key checks (FOR KEY SHARE) on this row never wait for it.
// The job's status before the claim comes back with it, for the history.
// The look-up walks the ready index (schema.ts) in the claim's order and stops at the first due job: no sort.
/** The claim's look-up and take, in one statement (exported for its plan's test). */
export const CLAIM_SQL = `
WITH next AS (
  SELECT id, status FROM agent_jobs
  WHERE status IN ('pending', 'retry') AND next_run_at <= clock_timestamp() AND attempts < max_attempts
  ORDER BY created_at, id
  LIMIT 1
  FOR NO KEY UPDATE SKIP LOCKED
)
UPDATE agent_jobs AS j
SET status = 'running', leased_by = @workerId, lease_until = clock.now + ${millis('@leaseMs')},
    attempts = j.attempts + 1, lease_fence = j.lease_fence + 1, updated_at = clock.now
FROM next, ${CLOCK}
WHERE j.id = next.id AND j.status IN ('pending', 'retry')
RETURNING next.status AS claimed_from, ${jobColumns('j')}`;

/**
 * Sweeps every expired lease back (recorded as the claimer's doing), then
 * claims the oldest ready job under a new epoch, counting the attempt and
 * recording the claim. Null when nothing is ready. Run in a transaction: under
 * READ COMMITTED each statement sees the sweep's own releases, so a job just
 * taken back can be claimed at once.
 */
export async function claim(db: Queryable, input: ClaimInput): Promise<JobRow | null> {
  await sweepExpiredLeases(db, { skewMarginMs: input.skewMarginMs, actor: 'worker', worker: input.workerId });
  const taken = await firstRow<JobRow & { claimed_from: 'pending' | 'retry' }>(db, CLAIM_SQL, { workerId: input.workerId, leaseMs: input.leaseMs });
  if (!taken) return null;
  const { claimed_from: from, ...job } = taken;
  await appendEvent(db, {
    jobId: job.id,
    kind: 'transition',
    from,
    to: 'running',
    attempt: job.attempts,
    fence: job.lease_fence,
    worker: input.workerId,
    actor: 'worker',
    reason: `claimed by ${input.workerId}, lease until ${job.lease_until}`,
  });
  return job;
}
