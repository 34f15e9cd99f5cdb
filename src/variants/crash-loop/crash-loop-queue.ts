import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { crashLoopClaim } from './claim.js';

/** The reference queue whose claim lets a poison job's crash loop run for ever (see ./claim.ts). */
export class CrashLoopQueue extends SqliteQueue {
  protected override readonly claimer = crashLoopClaim;
}
