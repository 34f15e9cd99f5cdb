import type { Queryable } from '../../../adapters/pg/queryable.js';
import { assertDigest } from '../../digest.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { writeUnderLease } from './write-under-lease.js';

/** Marks a held job done with its verified result digest (checked before anything is written), outcome `done`. Run in a transaction. */
export async function complete(db: Queryable, lease: Lease, resultDigest: string, leaseGuard?: string): Promise<LeaseWriteResult> {
  assertDigest(resultDigest);
  return writeUnderLease(
    db,
    lease,
    'worker',
    () => ({
      to: 'done',
      set: `status = 'done', result_digest = @digest, leased_by = NULL, lease_until = NULL, last_error = NULL, review_reason = NULL, outcome = 'done'`,
      params: { digest: resultDigest },
      reason: `done, verified result ${resultDigest.slice(0, 12)}`,
    }),
    { to: 'done', what: 'complete' },
    leaseGuard,
  );
}
