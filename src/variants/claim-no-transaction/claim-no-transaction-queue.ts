import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { lookUpThenUpdate } from './claim.js';

/**
 * The reference queue with one plausible mistake: its claim is a look-up and
 * then an update, outside any transaction, the update guarded by the job's id
 * alone ("find the next job, then take it"). It reads right and passes every
 * single-worker test; with several workers, two of them can take one job. The
 * work between the look-up and the update (checking the job before taking it)
 * lasts WORK_WINDOW_MS, as it would against a database server, so a drill
 * with two workers and a few jobs sees the race (see ../work-window.ts).
 * Expired leases are still swept first, in their own transaction: the claim's
 * race is the only mistake.
 */
export class ClaimNoTransactionQueue extends SqliteQueue {
  protected override readonly claimer = lookUpThenUpdate;
}
