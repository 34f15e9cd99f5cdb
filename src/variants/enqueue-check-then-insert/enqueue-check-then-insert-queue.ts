import { type QueueOptions, SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { openStore } from '../../reference/sqlite/store.js';
import { checkThenInsert } from './enqueue.js';
import { SCHEMA_WITHOUT_UNIQUE_KEY_SQL } from './schema.js';

/**
 * The reference queue with one plausible mistake: deduplication on enqueue is
 * the application's look-up ("is this key there? no: insert it"), and the
 * store has no UNIQUE constraint on idempotency_key to fall back on. The work
 * between the look-up and the insert (validating the payload before storing
 * it) lasts WORK_WINDOW_MS, as it would against a database server, so
 * producers racing on the same keys see the race (see ../work-window.ts). On a
 * store the reference made, the constraint is still there and a lost race
 * fails loudly instead; only a store this variant made shows the mistake.
 */
export class EnqueueCheckThenInsertQueue extends SqliteQueue {
  protected override readonly enqueuer = checkThenInsert;

  /** Opens the store, making its tables without the unique key where it has none yet. */
  static override open(file: string, options: QueueOptions): EnqueueCheckThenInsertQueue {
    return new EnqueueCheckThenInsertQueue(openStore(file, { schema: SCHEMA_WITHOUT_UNIQUE_KEY_SQL }), options);
  }
}
