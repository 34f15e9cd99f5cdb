import { type QueueOptions, SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { type Db, openStore } from '../../reference/sqlite/store.js';
import { timerClaim } from './claim.js';

/** How long a job waits in review before this queue's claim takes it again (defined beside the claim). */
export { REVIEW_TIMER_MS } from './claim.js';

/** The store's trigger that refuses any change the state machine does not allow (src/port/states.ts). */
const TRANSITION_TRIGGER = 'agent_jobs_allowed_transitions';

/**
 * The reference queue with one plausible mistake: jobs leave review on a
 * timer. Review had become a pile nobody emptied, so the claim now also takes
 * a job that has sat in review for REVIEW_TIMER_MS, as if review were a long
 * retry delay. The store's transition trigger refused that (review to running
 * is no edge of the state machine), so whoever made the change also removed
 * the check that got in the way: open() drops the trigger, and the claim
 * writes its own history event for a job it takes out of review. A job sent to
 * review because its outcome is unknown, its error permanent, or its plan
 * against policy is run again without anyone having looked at it.
 */
export class ReviewOnTimerQueue extends SqliteQueue {
  protected override readonly claimer = timerClaim;

  /** Opens the store and drops its transition trigger (openStore makes it again on every open). */
  static override open(file: string, options: QueueOptions): ReviewOnTimerQueue {
    const db: Db = openStore(file);
    db.exec(`DROP TRIGGER IF EXISTS ${TRANSITION_TRIGGER}`);
    return new ReviewOnTimerQueue(db, options);
  }
}
