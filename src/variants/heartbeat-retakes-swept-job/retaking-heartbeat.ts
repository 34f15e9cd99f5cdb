import { utc } from '../../kernel/clock.js';
import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { guardedLeaseWriter, refuseAndRecord } from '../../reference/sqlite/sql/write-under-lease.js';
import type { Db } from '../../reference/sqlite/store.js';

// The reference's guard, widened: or a job a sweep took back from this very lease (same fence, nobody holds it,
// nobody has claimed it since), which the renewal takes back. A job the sweep sent to review is left there.
const HELD_OR_SWEPT =
  `id = @jobId AND lease_fence = @fence AND ((status IN ('running', 'compensating') AND leased_by = @workerId) ` +
  `OR (status = 'retry' AND leased_by IS NULL))`;

const retakingWrite = guardedLeaseWriter(HELD_OR_SWEPT, refuseAndRecord);

/**
 * Renews a held lease, or takes a swept one back: running again, under the
 * worker's old fence, with the same attempt. The status change is recorded as
 * the reference records every one (retry→running by the worker); a renewal
 * refused for any other reason is refused and recorded as the reference's.
 */
export function retakingHeartbeat(db: Db, lease: Lease, now: number, leaseMs: number): LeaseWriteResult {
  return retakingWrite(
    db,
    lease,
    utc(now),
    'worker',
    () => ({
      to: 'running',
      set: "status = 'running', leased_by = @workerId, lease_until = @leaseUntil",
      params: { leaseUntil: utc(now + leaseMs) },
      reason: 'lease renewed',
    }),
    { to: 'running', what: 'heartbeat' },
  );
}
