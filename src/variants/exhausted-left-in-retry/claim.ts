import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import { sweepWith } from '../../reference/sqlite/sql/sweep-expired-leases.js';

/**
 * The reference claim, except that its sweep sends every expired lease back to
 * retry, the last attempt's too (the check for a spent budget lives only on the
 * path where a worker reports a failure). The look-up still honours the budget,
 * so a job whose worker died on its last attempt waits in retry for an attempt
 * it will never get: nobody is told, and it never ends.
 */
export const exhaustedLeftInRetryClaim: Claimer = claimWith({
  sweep: sweepWith({ release: (job) => ({ to: 'retry', reason: `lease of ${job.leased_by} expired at ${job.lease_until}` }) }),
});
