import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/**
 * The reference queue with one plausible mistake: a failed job's stored error
 * quotes the job's payload, "for context". The worker redacted the error it
 * reported; the queue then adds back whatever secret the payload carries, in a
 * column every dashboard and support person reads.
 */
export class PayloadInErrorQueue extends SqliteQueue {
  override retry(lease: Lease, error: string, attempt?: number): LeaseWriteResult {
    return super.retry(lease, this.withPayload(lease, error), attempt);
  }

  override review(lease: Lease, reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): LeaseWriteResult {
    return super.review(lease, reason, error === undefined ? undefined : this.withPayload(lease, error), outcome);
  }

  private withPayload(lease: Lease, error: string): string {
    return `${error} (job payload: ${this.job(lease.jobId)?.payload_json ?? '?'})`;
  }
}
