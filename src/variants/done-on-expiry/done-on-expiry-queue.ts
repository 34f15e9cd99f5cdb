import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { doneOnExpiryClaim } from './claim.js';

/** The reference queue whose claim marks a job done when its lease expires (see ./claim.ts). */
export class DoneOnExpiryQueue extends SqliteQueue {
  protected override readonly claimer = doneOnExpiryClaim;
}
