import { utc } from '../../kernel/clock.js';
import type { JobRow } from '../../reference/job.js';
import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import type { ClaimSource } from '../../reference/sqlite/sql/claim-rules.js';
import { type Db, statement } from '../../reference/sqlite/store.js';

/** How long a job waits in review before a worker takes it again. */
export const REVIEW_TIMER_MS = 300;

// appendEvent checks the state machine, which has no edge out of review for a
// worker; the variant writes its claim of a review job itself.
const EVENT = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at)
VALUES (@jobId, 'transition', 'review', 'running', @attempt, @fence, @worker, 'worker', @reason, @at)`;

/** Writes the claim of a job taken out of review to the history, past the state machine's check. */
function recordTimerClaim(db: Db, job: JobRow, at: string): void {
  statement(db, EVENT).run({
    jobId: job.id,
    attempt: job.attempts,
    fence: job.lease_fence,
    worker: job.leased_by,
    reason: `claimed by ${job.leased_by} after ${REVIEW_TIMER_MS} ms in review, lease until ${job.lease_until}`,
    at,
  });
}

/** Review as one more queue to take from, once a job has sat there untouched for REVIEW_TIMER_MS. */
export const REVIEW_AFTER_TIMER: ClaimSource = {
  status: 'review',
  ready: 'updated_at <= @reviewCutoff AND attempts < max_attempts',
  params: (now) => ({ reviewCutoff: utc(now - REVIEW_TIMER_MS) }),
  record: recordTimerClaim,
};

/**
 * The reference claim (one immediate transaction, the lease sweep first), with
 * review as one more queue to take from once a job has waited there long
 * enough, as if review were a long retry delay.
 */
export const timerClaim: Claimer = claimWith({ alsoFrom: [REVIEW_AFTER_TIMER] });
