import { utc } from '../../../kernel/clock.js';
import type { Lease, LeaseWriteResult } from '../../../queue/job.js';
import type { Db } from '../store.js';
import { writeUnderLease, type LeaseWriter } from './write-under-lease.js';
import { InternalError } from '../../../kernel/errors.js';

const DIGEST = /^[0-9a-f]{64}$/;

/** Thrown when `done` is asked for without a verification digest: done is never the worker's word. */
export class MissingDigestError extends InternalError {
  readonly code = 'QD_DONE_WITHOUT_DIGEST';
  constructor(digest: unknown) {
    super(`complete needs the verified result's SHA-256 digest (64 lowercase hex), got ${JSON.stringify(digest)}`);
  }
}

/** Marks a held job done with its verified result digest and releases the lease. */
export function complete(db: Db, lease: Lease, now: number, resultDigest: string, write: LeaseWriter = writeUnderLease): LeaseWriteResult {
  if (!DIGEST.test(resultDigest)) throw new MissingDigestError(resultDigest);
  return write(
    db,
    lease,
    utc(now),
    'worker',
    () => ({
      to: 'done',
      set: 'status = @to, result_digest = @digest, leased_by = NULL, lease_until = NULL, last_error = NULL, review_reason = NULL',
      params: { to: 'done', digest: resultDigest },
      reason: `done, verified result ${resultDigest.slice(0, 12)}`,
    }),
    { to: 'done', what: 'complete' },
  );
}
