import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { type Claimed, SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/** The lease every claim and heartbeat takes, whatever the caller asked for: a day. */
export const NEVER_EXPIRING_LEASE_MS = 24 * 60 * 60 * 1000;

/**
 * The reference queue with one plausible mistake: leases (practically) never
 * expire. Long jobs were being taken over mid-run, so the lease was made "long
 * enough for any job": a day, on every claim and every heartbeat. Sweeps and
 * fencing are the reference's, but there is nothing left for them to do: a
 * worker that crashed or hangs keeps its job `running` for a day, and no other
 * worker, restarted or not, ever takes it back.
 */
export class LeaseNeverExpiresQueue extends SqliteQueue {
  override claim(workerId: string): Claimed | null {
    return super.claim(workerId, NEVER_EXPIRING_LEASE_MS);
  }

  override heartbeat(lease: Lease): LeaseWriteResult {
    return super.heartbeat(lease, NEVER_EXPIRING_LEASE_MS);
  }
}
