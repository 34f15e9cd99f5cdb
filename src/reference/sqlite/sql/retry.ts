import { utc } from '../../../kernel/clock.js';
import type { Actor } from '../../../port/states.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import type { Db } from '../store.js';
import { type LeaseWriter, writeUnderLease } from './write-under-lease.js';

/** What releasing a held job for another attempt needs: when, how long to wait, and the error. */
export interface RetryInput {
  now: number;
  delayMs: number;
  /** Already redacted and truncated. */
  error: string;
  actor?: Actor;
}

/**
 * Releases a held job to run again after a delay; a job with no attempts left
 * goes to `review` instead (exhausted retries are for a person, not a loop).
 */
export function retry(db: Db, lease: Lease, input: RetryInput, write: LeaseWriter = writeUnderLease): LeaseWriteResult {
  return write(
    db,
    lease,
    utc(input.now),
    input.actor ?? 'worker',
    (held) => {
      const exhausted = held.attempts >= held.max_attempts;
      const reason = exhausted
        ? `retries exhausted (${held.attempts} of ${held.max_attempts}): ${input.error}`
        : `retry in ${input.delayMs} ms: ${input.error}`;
      return {
        to: exhausted ? 'review' : 'retry',
        set: `status = @to, next_run_at = @nextRunAt, last_error = @error, leased_by = NULL, lease_until = NULL,
              review_reason = CASE WHEN @to = 'review' THEN @reason ELSE review_reason END,
              outcome = CASE WHEN @to = 'review' THEN 'review' ELSE outcome END`,
        params: { to: exhausted ? 'review' : 'retry', nextRunAt: utc(input.now + input.delayMs), error: input.error, reason },
        reason,
        ...(exhausted ? {} : { delayMs: input.delayMs }),
      };
    },
    { to: 'retry', what: 'retry' },
  );
}
