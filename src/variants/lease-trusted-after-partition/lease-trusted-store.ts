import { assertDigest } from '../../reference/digest.js';
import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { PgLeaseStore } from '../../reference/postgres/pg-lease-store.js';
import { complete } from '../../reference/postgres/sql/complete.js';
import { heartbeat } from '../../reference/postgres/sql/heartbeat.js';

/**
 * The mistake: a worker's renewal and complete check only that the job is
 * still running, not that it is still this worker's under this claim's epoch,
 * "the worker got this job and has held it all along". A worker cut off from
 * the server past its lease never learns that the lease expired and another
 * worker claimed the job: when the partition heals, its held renewal extends
 * the new holder's lease and its complete lands on the job the other holds.
 */
const TRUSTED_LEASE = `id = @jobId AND status IN ('running', 'compensating')`;

export class LeaseTrustedStore extends PgLeaseStore {
  override heartbeat(lease: Lease): Promise<LeaseWriteResult> {
    return this.transaction((db) => heartbeat(db, lease, this.leaseMs, TRUSTED_LEASE));
  }

  override async complete(lease: Lease, digest: string): Promise<LeaseWriteResult> {
    assertDigest(digest);
    return this.transaction((db) => complete(db, lease, digest, TRUSTED_LEASE));
  }
}
