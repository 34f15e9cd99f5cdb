import type { Queryable } from '../../../adapters/pg/queryable.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { writeUnderLease } from './write-under-lease.js';

export interface ReviewInput {
  /** Why a person must look: already redacted. */
  reason: string;
  /** Already redacted and truncated. */
  error?: string | undefined;
  /** A failure for a person, or a prepared step waiting for a person's approval. */
  outcome: 'review' | 'awaiting_approval';
}

/** Sends a held job to review with its reason and outcome, releasing the lease; it stays there until a person acts. Run in a transaction. */
export async function review(db: Queryable, lease: Lease, input: ReviewInput): Promise<LeaseWriteResult> {
  return writeUnderLease(
    db,
    lease,
    'worker',
    () => ({
      to: 'review',
      set: `status = 'review', review_reason = @reason, last_error = COALESCE(@error, last_error),
            leased_by = NULL, lease_until = NULL, outcome = @outcome`,
      params: { reason: input.reason, error: input.error ?? null, outcome: input.outcome },
      reason: input.reason,
    }),
    { to: 'review', what: 'review' },
  );
}
