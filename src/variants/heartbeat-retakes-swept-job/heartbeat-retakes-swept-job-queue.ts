import type { Lease, LeaseWriteResult } from '../../reference/job.js';
import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { retakingHeartbeat } from './retaking-heartbeat.js';

/**
 * The reference queue with one plausible mistake: a renewal that finds its
 * lease swept, with nobody else on the job yet, takes the job back instead of
 * being refused ("the worker is alive after all, and nobody else has it").
 * The sweep already ended that lease and sent the job to retry; the worker,
 * stalled past it, goes on as its holder under the fence the sweep ended, an
 * attempt nobody counted. Claims, sweeps and every other write are the reference's.
 */
export class HeartbeatRetakesSweptJobQueue extends SqliteQueue {
  override heartbeat(lease: Lease, leaseMs = this.leaseMs): LeaseWriteResult {
    return this.busy('heartbeat', () => retakingHeartbeat(this.db, lease, this.options.clock.now(), leaseMs));
  }
}
