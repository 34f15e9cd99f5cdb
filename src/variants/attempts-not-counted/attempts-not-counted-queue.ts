import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { uncountedClaim } from './claim.js';

/**
 * The reference queue with one plausible mistake: the claim does not count the
 * attempt (the increment was left to the worker's failure path, or lost in a
 * refactor of the UPDATE). Every budget built on `attempts` is then never
 * spent: max_attempts never ends a run of failures in review, a lease that
 * expired on its last attempt goes back to retry, and the history's claims no
 * longer match the job's count.
 */
export class AttemptsNotCountedQueue extends SqliteQueue {
  protected override readonly claimer = uncountedClaim;
}
