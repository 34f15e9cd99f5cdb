import { utc } from '../../kernel/clock.js';
import type { JobRow } from '../../queue/job.js';
import { appendEvent } from '../sqlite/sql/append-event.js';
import { sweepExpiredLeases } from '../sqlite/sql/sweep-expired-leases.js';
import { statement, type Db } from '../sqlite/store.js';

export interface TimerClaimInput {
  workerId: string;
  now: number;
  leaseMs: number;
  skewMarginMs: number;
  /** A job left untouched in review this long is claimed again. */
  reviewAfterMs: number;
}

// The reference's look-up, plus review jobs nobody has touched for a while.
const NEXT = `
SELECT id, status FROM agent_jobs
WHERE ((status IN ('pending', 'retry') AND next_run_at <= @at) OR (status = 'review' AND updated_at <= @reviewCutoff))
  AND attempts < max_attempts
ORDER BY created_at, id
LIMIT 1`;

const TAKE = `
UPDATE agent_jobs
SET status = 'running', leased_by = @workerId, lease_until = @leaseUntil,
    attempts = attempts + 1, lease_fence = lease_fence + 1, updated_at = @at
WHERE id = @id AND status IN ('pending', 'retry', 'review')
RETURNING *`;

// appendEvent checks the state machine, which has no edge out of review for a
// worker; the variant writes its claim of a review job itself.
const EVENT = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at)
VALUES (@jobId, 'transition', 'review', 'running', @attempt, @fence, @worker, 'worker', @reason, @at)`;

/**
 * The reference claim (one immediate transaction, the lease sweep first), with
 * review as one more queue to take from once a job has waited there long
 * enough, as if review were a long retry delay.
 */
export function timerClaim(db: Db, input: TimerClaimInput): JobRow | null {
  return db
    .transaction((): JobRow | null => {
      const at = utc(input.now);
      sweepExpiredLeases(db, { now: input.now, skewMarginMs: input.skewMarginMs, actor: 'worker', worker: input.workerId });
      const next = statement(db, NEXT).get({ at, reviewCutoff: utc(input.now - input.reviewAfterMs) }) as
        | { id: number; status: 'pending' | 'retry' | 'review' }
        | undefined;
      if (!next) return null;
      const job = statement(db, TAKE).get({ id: next.id, workerId: input.workerId, leaseUntil: utc(input.now + input.leaseMs), at }) as JobRow;
      const event = {
        jobId: job.id,
        attempt: job.attempts,
        fence: job.lease_fence,
        worker: input.workerId,
        at,
      };
      if (next.status === 'review') {
        statement(db, EVENT).run({ ...event, reason: `claimed by ${input.workerId} after ${input.reviewAfterMs} ms in review, lease until ${job.lease_until}` });
      } else {
        appendEvent(db, { ...event, kind: 'transition', from: next.status, to: 'running', actor: 'worker', reason: `claimed by ${input.workerId}, lease until ${job.lease_until}` });
      }
      return job;
    })
    .immediate();
}
