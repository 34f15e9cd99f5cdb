import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import { WORK_WINDOW_MS } from '../work-window.js';

/**
 * Claims as a look-up, then an update, each its own autocommit statement (the
 * sweep of expired leases before them commits on its own too): no transaction
 * holds the two together, and the update is guarded by the id alone, so it
 * does not check the job is still pending or retrying. Two workers that look
 * up in the same moment both find the same job, and both updates succeed
 * (running to running is no status change, so the store's transition trigger
 * does not object): two workers hold one job, each told it won. The work
 * between the look-up and the update lasts WORK_WINDOW_MS (see ../work-window.ts).
 */
export const lookUpThenUpdate: Claimer = claimWith({ oneTransaction: false, guard: 'id', workMs: WORK_WINDOW_MS });
