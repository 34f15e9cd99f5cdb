import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { historyGapClaim } from './claim.js';

/** The reference queue whose lease sweep leaves no trace in the history (see ./claim.ts), the coordinator's release of an expired lease included. */
export class HistoryGapQueue extends SqliteQueue {
  protected override readonly claimer = historyGapClaim;
  protected override readonly recordsReleases = false;
}
