import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { exhaustedLeftInRetryClaim } from './claim.js';

/** The reference queue whose lease sweep leaves a job with no attempts left in retry (see ./claim.ts). */
export class ExhaustedLeftInRetryQueue extends SqliteQueue {
  protected override readonly claimer = exhaustedLeftInRetryClaim;
}
