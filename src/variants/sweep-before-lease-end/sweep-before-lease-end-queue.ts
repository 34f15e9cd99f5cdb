import { DEFAULT_SKEW_MARGIN_MS } from '../../kernel/defaults.js';
import { type QueueOptions, SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import type { Db } from '../../reference/sqlite/store.js';

/**
 * The reference queue with one plausible mistake: the skew margin is added to
 * the sweeper's clock instead of taken off it ("lease_until < now + margin",
 * to take dead holders' jobs back a little early). Every sweep (a claim's, the
 * coordinator's) and every wake-up for one then counts a lease as expired the
 * margin before its end: with a holder whose clock runs behind the sweeper's,
 * a job is taken back while its holder's lease is still live.
 */
export class SweepBeforeLeaseEndQueue extends SqliteQueue {
  constructor(db: Db, options: QueueOptions) {
    super(db, { ...options, skewMarginMs: -(options.skewMarginMs ?? DEFAULT_SKEW_MARGIN_MS) });
  }
}
