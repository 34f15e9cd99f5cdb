import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import { sweepWith } from '../../reference/sqlite/sql/sweep-expired-leases.js';

/**
 * The reference claim, except that its sweep takes an expired lease to mean
 * the job finished ("no news is good news"): the job is marked done, with no
 * digest, by a worker that never ran it, whether or not its effect happened.
 */
export const doneOnExpiryClaim: Claimer = claimWith({
  sweep: sweepWith({ release: (job) => ({ to: 'done', reason: `lease of ${job.leased_by} expired at ${job.lease_until}: taken as finished` }) }),
});
