import type { Queryable } from '../../../adapters/pg/queryable.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { writeUnderLease } from './write-under-lease.js';

/**
 * A worker whose plan failed for good after some steps completed hands the job
 * to the coordinator for compensation, releasing its lease. Run in a transaction.
 */
export async function beginCompensation(db: Queryable, lease: Lease, input: { reason: string; error: string }): Promise<LeaseWriteResult> {
  return writeUnderLease(
    db,
    lease,
    'worker',
    () => ({
      to: 'compensating',
      set: `status = 'compensating', last_error = @error, leased_by = NULL, lease_until = NULL`,
      params: { error: input.error },
      reason: input.reason,
    }),
    { to: 'compensating', what: 'begin compensation' },
  );
}
