import { utc } from '../../kernel/clock.js';
import { SqliteQueue, type EnqueueRequest, type QueueOptions } from '../sqlite/sqlite-queue.js';
import { openStore } from '../sqlite/store.js';
import { WORK_WINDOW_MS } from '../work-window.js';
import { checkThenInsert } from './enqueue.js';
import { createStoreWithoutUniqueKey } from './schema.js';

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
  /** Makes the store without the unique key if it has no tables yet, then opens it as the reference does. */
  static override open(file: string, options: QueueOptions): EnqueueCheckThenInsertQueue {
    createStoreWithoutUniqueKey(file);
    return new EnqueueCheckThenInsertQueue(openStore(file), options);
  }

  override enqueue(request: EnqueueRequest): { created: boolean; jobId: number } {
    return checkThenInsert(
      this.db,
      {
        key: request.key,
        action: request.action,
        payloadJson: typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload),
        maxAttempts: request.maxAttempts ?? this.defaultMaxAttempts,
        at: utc(this.options.clock.now()),
      },
      WORK_WINDOW_MS,
    );
  }
}
