import type { JobRow } from '../../queue/job.js';
import { SqliteQueue, type Claimed } from '../../queue/sqlite-queue.js';
import { seedLiteralClaim } from './claim.js';
import { unfencedWrite } from './unfenced-write.js';

/**
 * The queue exactly as seed 000 sketches it, bugs included, kept so the shipped
 * drill can prove it catches them: its claim never takes a crashed worker's job
 * back (it stays `running` forever), it has no lease sweep, and a write whose
 * lease was lost passes silently. Everything else is the reference queue.
 */
export class SeedLiteralQueue extends SqliteQueue {
  protected override readonly write = unfencedWrite;

  override claim(workerId: string, leaseMs = this.leaseMs): Claimed | null {
    const job = seedLiteralClaim(this.db, { workerId, now: this.options.clock.now(), leaseMs });
    return job ? { job, lease: { jobId: job.id, workerId, fence: job.lease_fence } } : null;
  }

  override sweepExpiredLeases(): Array<{ jobId: number; to: 'retry' | 'review' }> {
    return [];
  }

  override expiredLeases(): JobRow[] {
    return [];
  }
}
