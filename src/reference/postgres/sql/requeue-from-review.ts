import { CLOCK, firstRow, type Queryable } from '../../../adapters/pg/queryable.js';
import type { TxEntry } from '../../../port/checkpoint.js';
import { attemptGranted } from '../../approval-grant.js';
import { appendEvent } from './append-event.js';
import { appendCheckedTx } from './append-tx.js';
import { wakeIdle } from './wake.js';

const SQL = `
UPDATE agent_jobs
SET status = 'pending', next_run_at = clock.now, updated_at = clock.now, max_attempts = GREATEST(max_attempts + @granted, attempts + 1),
    review_reason = NULL, outcome = NULL
FROM ${CLOCK}
WHERE id = @jobId AND status = 'review'
RETURNING attempts, lease_fence, idempotency_key`;

/**
 * The one way out of review: a person's recorded decision to run the job
 * again, one more attempt allowed (an approval's run on top of the job's own:
 * attemptGranted), in the history (actor human) and in the
 * saga log as a `requeue` checkpoint (with `checkpoint`, an approval, before
 * it), in the caller's transaction. False when the job is not in review (the
 * update wrote nothing, so nothing else is written).
 */
export async function requeueFromReview(
  db: Queryable,
  input: { jobId: number; by: string; note: string; checkpoint?: TxEntry | undefined },
): Promise<boolean> {
  const row = await firstRow<{ attempts: number; lease_fence: number; idempotency_key: string }>(db, SQL, {
    jobId: input.jobId,
    granted: attemptGranted(input.checkpoint),
  });
  if (!row) return false;
  // A person's checkpoints carry the job's attempt and epoch at that moment.
  const writer = { jobId: input.jobId, attempt: row.attempts, epoch: row.lease_fence, worker: `human:${input.by}` };
  if (input.checkpoint) await appendCheckedTx(db, writer, input.checkpoint);
  await appendCheckedTx(db, writer, { stepId: '(job)', action: 'requeue', key: row.idempotency_key, status: 'success', detail: input.note });
  await appendEvent(db, {
    jobId: input.jobId,
    kind: 'transition',
    from: 'review',
    to: 'pending',
    attempt: row.attempts,
    fence: row.lease_fence,
    worker: null,
    actor: 'human',
    reason: `requeued by ${input.by}: ${input.note}`,
  });
  // Pending and due now.
  await wakeIdle(db);
  return true;
}
