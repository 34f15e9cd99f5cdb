import { SqliteQueue } from '../sqlite/sqlite-queue.js';
import { historyGapClaim } from './claim.js';

/** The reference queue whose lease sweep leaves no trace in the history (see ./claim.ts). */
export class HistoryGapQueue extends SqliteQueue {
  protected override readonly claimer = historyGapClaim;
}
