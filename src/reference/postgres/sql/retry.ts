import { millis, type Queryable } from '../../../adapters/pg/queryable.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { writeUnderLease } from './write-under-lease.js';

export interface RetryInput {
  /** The delay before the next attempt, for the attempt the held row shows (computed in JS: the policy and its jitter are the caller's). */
  delayMs: (attempt: number) => number;
  /** Already redacted and truncated. */
  error: string;
}

/**
 * Releases a held job to run again after a delay from the server's now; a job
 * with no attempts left goes to review instead (outcome `review`): exhausted
 * retries are for a person, not a loop. Run in a transaction.
 */
export async function retry(db: Queryable, lease: Lease, input: RetryInput): Promise<LeaseWriteResult> {
  return writeUnderLease(
    db,
    lease,
    'worker',
    (held) => {
      const delayMs = input.delayMs(held.attempts);
      const exhausted = held.attempts >= held.max_attempts;
      const to = exhausted ? 'review' : 'retry';
      const reason = exhausted
        ? `retries exhausted (${held.attempts} of ${held.max_attempts}): ${input.error}`
        : `retry in ${delayMs} ms: ${input.error}`;
      return {
        to,
        set: `status = @to::text, next_run_at = clock.now + ${millis('@delayMs')}, last_error = @error, leased_by = NULL, lease_until = NULL,
              review_reason = CASE WHEN @to::text = 'review' THEN @reason::text ELSE review_reason END,
              outcome = CASE WHEN @to::text = 'review' THEN 'review' END`,
        params: { to, delayMs, error: input.error, reason },
        reason,
        ...(exhausted ? {} : { delayMs }),
      };
    },
    { to: 'retry', what: 'retry' },
  );
}
