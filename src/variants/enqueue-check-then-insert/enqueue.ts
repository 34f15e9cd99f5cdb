import { type Enqueuer, enqueueWith } from '../../reference/sqlite/sql/enqueue.js';
import { WORK_WINDOW_MS } from '../work-window.js';

/**
 * Looks the key up, and inserts when it is absent: check, then act. The job and
 * its history row are written together, but the check is outside that
 * transaction, and without a UNIQUE constraint nothing stops two producers that
 * both saw "absent" from both inserting: two jobs for one key, each producer
 * told it created the job. The work between the look-up and the insert lasts
 * WORK_WINDOW_MS (see ../work-window.ts).
 */
export const checkThenInsert: Enqueuer = enqueueWith({ dedupe: 'check-then-insert', workMs: WORK_WINDOW_MS });
