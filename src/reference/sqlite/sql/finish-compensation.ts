import { utc } from '../../../kernel/clock.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import type { Db } from '../store.js';
import { type LeaseWriter, writeUnderLease } from './write-under-lease.js';

/**
 * The coordinator ends a saga: compensated, or a compensation that failed and
 * needs manual recovery. Either way a person must see it, so it goes to review.
 */
export function finishCompensation(
  db: Db,
  lease: Lease,
  input: { now: number; outcome: 'compensated' | 'compensation_failed'; reason: string },
  write: LeaseWriter = writeUnderLease,
): LeaseWriteResult {
  return write(
    db,
    lease,
    utc(input.now),
    'coordinator',
    () => ({
      to: 'review',
      set: `status = 'review', review_reason = @reason, leased_by = NULL, lease_until = NULL, outcome = @outcome`,
      params: { reason: input.reason, outcome: input.outcome },
      reason: input.reason,
    }),
    { to: 'review', what: 'finish compensation' },
  );
}
