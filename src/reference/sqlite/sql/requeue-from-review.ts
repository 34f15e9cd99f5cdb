import { utc } from '../../../kernel/clock.js';
import type { TxEntry } from '../../../port/checkpoint.js';
import { attemptGranted } from '../../approval-grant.js';
import { type Db, statement } from '../store.js';
import { appendEvent } from './append-event.js';
import { appendCheckedTx } from './append-tx.js';

const SQL = `
UPDATE agent_jobs
SET status = 'pending', next_run_at = @at, updated_at = @at, max_attempts = MAX(max_attempts + @granted, attempts + 1), review_reason = NULL, outcome = NULL
WHERE id = @jobId AND status = 'review'
RETURNING attempts, lease_fence, idempotency_key`;

/**
 * The one way out of review: a person's recorded decision to run the job again,
 * with one more attempt allowed (an approval's run on top of the job's own:
 * attemptGranted), recorded in the history and as a `requeue`
 * checkpoint (with `checkpoint`, an approval, before it), all in one
 * transaction. Returns false when the job is not in review.
 */
export function requeueFromReview(
  db: Db,
  input: { jobId: number; by: string; note: string; now: number; checkpoint?: TxEntry | undefined },
): boolean {
  return db
    .transaction(() => {
      const at = utc(input.now);
      const row = statement(db, SQL).get({ jobId: input.jobId, at, granted: attemptGranted(input.checkpoint) }) as
        | { attempts: number; lease_fence: number; idempotency_key: string }
        | undefined;
      if (!row) return false;
      // The person's decision is in the saga log too, so whoever runs the job next knows it was sent back on purpose.
      const writer = { jobId: input.jobId, attempt: row.attempts, epoch: row.lease_fence, worker: `human:${input.by}` };
      if (input.checkpoint) appendCheckedTx(db, writer, input.checkpoint, input.now);
      appendCheckedTx(db, writer, { stepId: '(job)', action: 'requeue', key: row.idempotency_key, status: 'success', detail: input.note }, input.now);
      appendEvent(db, {
        jobId: input.jobId,
        kind: 'transition',
        from: 'review',
        to: 'pending',
        attempt: row.attempts,
        fence: row.lease_fence,
        worker: null,
        actor: 'human',
        reason: `requeued by ${input.by}: ${input.note}`,
        at,
      });
      return true;
    })
    .immediate();
}
