import { assertDigest } from '../../reference/digest.js';
import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/**
 * The reference queue with one plausible mistake: complete is made
 * "idempotent" by answering ok for a job that is already done, whoever asks
 * ("it is done either way"). A stale holder that wakes after the next holder
 * has finished its job is told its complete went through: nothing is changed
 * and nothing is recorded, so nobody learns that a worker wrote to a job it no
 * longer held (the queue sketch's 0-row UPDATE, for done jobs only). Every
 * other write, and a complete on a job that is not done, is the reference's.
 */
export class CompleteOnDoneSilentlyQueue extends SqliteQueue {
  override complete(lease: Lease, resultDigest: string): LeaseWriteResult {
    assertDigest(resultDigest);
    if (this.job(lease.jobId)?.status === 'done') return { ok: true, status: 'done' };
    return super.complete(lease, resultDigest);
  }
}
