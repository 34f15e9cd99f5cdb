import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/**
 * The reference queue with one plausible mistake: a job is moved to review
 * without the reason its worker gave ("the status says it all"). The job is
 * where it should be, and the person who must decide what to do with it has
 * nothing to go on.
 */
export class ReviewWithoutReasonQueue extends SqliteQueue {
  override review(lease: Lease, _reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): LeaseWriteResult {
    return super.review(lease, '', error, outcome);
  }
}
