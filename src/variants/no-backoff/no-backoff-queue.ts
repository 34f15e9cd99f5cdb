import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/**
 * The reference queue with one plausible mistake: a failed job is released to
 * run again at once. The delay was computed but never applied (a unit mix-up,
 * a default of zero that nobody set): every failure hits the failing service
 * again within a poll, and every failed job comes back with it.
 */
export class NoBackoffQueue extends SqliteQueue {
  protected override retryDelayFor(): number {
    return 0;
  }
}
