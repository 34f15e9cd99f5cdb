import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { unguardedWrite } from './unguarded-write.js';

/**
 * The reference queue with one plausible mistake: every lease holder's write
 * (heartbeat, complete, retry, review, compensation) is guarded by the job's id
 * alone, as if holding the id were holding the job ("the worker got this job
 * from the queue, so it may write it"). Claims and sweeps are the reference's,
 * fences are still handed out, but no write checks them: a worker paused past
 * its lease wakes and its complete is applied over the job's new holder.
 */
export class UnguardedWritesQueue extends SqliteQueue {
  protected override readonly write = unguardedWrite;
}
