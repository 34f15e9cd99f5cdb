import { utc } from '../../../kernel/clock.js';
import { statement, type Db } from '../store.js';
import { appendEvent } from './append-event.js';

const SQL = `
UPDATE agent_jobs
SET status = 'pending', next_run_at = @at, updated_at = @at, max_attempts = MAX(max_attempts, attempts + 1), review_reason = NULL
WHERE id = @jobId AND status = 'review'
RETURNING attempts, lease_fence`;

/**
 * The one way out of review: a person's recorded decision to run the job again,
 * with one more attempt allowed. Returns false when the job is not in review.
 */
export function requeueFromReview(db: Db, input: { jobId: number; by: string; note: string; now: number }): boolean {
  return db
    .transaction(() => {
      const at = utc(input.now);
      const row = statement(db, SQL).get({ jobId: input.jobId, at }) as { attempts: number; lease_fence: number } | undefined;
      if (!row) return false;
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
