import { utc } from '../../../kernel/clock.js';
import type { Actor } from '../../../port/states.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import type { Db } from '../store.js';
import { type LeaseWriter, writeUnderLease } from './write-under-lease.js';

/** What sending a held job to review needs: when, why, and how it ended. */
export interface ReviewInput {
  now: number;
  /** Why a person must look: already redacted. */
  reason: string;
  /** Already redacted and truncated. */
  error?: string;
  actor?: Actor;
  /** A failure for a person, or a prepared step waiting for a person's approval. @default 'review' */
  outcome?: 'review' | 'awaiting_approval';
}

/** Sends a held job to review with its reason and releases the lease; it stays there until a person acts. */
export function review(db: Db, lease: Lease, input: ReviewInput, write: LeaseWriter = writeUnderLease): LeaseWriteResult {
  return write(
    db,
    lease,
    utc(input.now),
    input.actor ?? 'worker',
    () => ({
      to: 'review',
      set: `status = 'review', review_reason = @reason, last_error = COALESCE(@error, last_error),
            leased_by = NULL, lease_until = NULL, outcome = @outcome`,
      params: { reason: input.reason, error: input.error ?? null, outcome: input.outcome ?? 'review' },
      reason: input.reason,
    }),
    { to: 'review', what: 'review' },
  );
}
