import { utc } from '../../../kernel/clock.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import type { Db } from '../store.js';
import { type LeaseWriter, writeUnderLease } from './write-under-lease.js';

/**
 * A worker whose plan failed for good after some steps completed hands the job
 * to the coordinator for compensation, releasing its lease.
 */
export function beginCompensation(
  db: Db,
  lease: Lease,
  input: { now: number; reason: string; error: string },
  write: LeaseWriter = writeUnderLease,
): LeaseWriteResult {
  return write(
    db,
    lease,
    utc(input.now),
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
