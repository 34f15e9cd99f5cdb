import type { Queryable } from '../../../adapters/pg/queryable.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { writeUnderLease } from './write-under-lease.js';

/**
 * The coordinator ends a saga: compensated, or a compensation that failed and
 * needs manual recovery. Either way a person must see it, so it goes to
 * review, with the saga's outcome. Run in a transaction.
 */
export async function finishCompensation(
  db: Queryable,
  lease: Lease,
  input: { outcome: 'compensated' | 'compensation_failed'; reason: string },
): Promise<LeaseWriteResult> {
  return writeUnderLease(
    db,
    lease,
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
