import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/**
 * The reference queue with one plausible mistake: a failed job's stored error
 * carries the job's payload base64-encoded, "for debugging, and so it cannot
 * break the log's format". Encoded is not redacted: every secret of the
 * payload is in the column, one decode away, and a search for the secret as
 * written finds nothing.
 */
export class PayloadEncodedInErrorQueue extends SqliteQueue {
  override retry(lease: Lease, error: string, attempt?: number): LeaseWriteResult {
    return super.retry(lease, this.withPayload(lease, error), attempt);
  }

  override review(lease: Lease, reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): LeaseWriteResult {
    return super.review(lease, reason, error === undefined ? undefined : this.withPayload(lease, error), outcome);
  }

  private withPayload(lease: Lease, error: string): string {
    const payload = this.job(lease.jobId)?.payload_json ?? '';
    return `${error} (payload, base64: ${Buffer.from(payload, 'utf8').toString('base64')})`;
  }
}
