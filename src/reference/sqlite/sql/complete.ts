import { utc } from '../../../kernel/clock.js';
import { assertDigest } from '../../digest.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import type { Db } from '../store.js';
import { type LeaseWriter, writeUnderLease } from './write-under-lease.js';

/** Marks a held job done with its verified result digest and releases the lease. */
export function complete(db: Db, lease: Lease, now: number, resultDigest: string, write: LeaseWriter = writeUnderLease): LeaseWriteResult {
  assertDigest(resultDigest);
  return write(
    db,
    lease,
    utc(now),
    'worker',
    () => ({
      to: 'done',
      set: "status = @to, result_digest = @digest, leased_by = NULL, lease_until = NULL, last_error = NULL, review_reason = NULL, outcome = 'done'",
      params: { to: 'done', digest: resultDigest },
      reason: `done, verified result ${resultDigest.slice(0, 12)}`,
    }),
    { to: 'done', what: 'complete' },
  );
}
