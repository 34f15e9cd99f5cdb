import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import { sweepWith } from '../../reference/sqlite/sql/sweep-expired-leases.js';

/**
 * The reference claim, except that its sweep does not write the release of an
 * expired lease to the history (the event was left to a trigger that was never
 * added): a job's history jumps from running to the next claim, and nobody can
 * tell from it when or why the job was taken back.
 */
export const historyGapClaim: Claimer = claimWith({ sweep: sweepWith({ recorded: false }) });
