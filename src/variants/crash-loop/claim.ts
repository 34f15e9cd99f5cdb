import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import { sweepWith } from '../../reference/sqlite/sql/sweep-expired-leases.js';

/**
 * The reference claim, except that the attempt budget is checked only where a
 * worker reports a failure: the sweep sends every expired lease back to retry,
 * and the look-up takes a retry job whatever its attempts. A job whose worker
 * dies on every attempt (a poison job) is claimed, and kills a worker, for ever.
 */
export const crashLoopClaim: Claimer = claimWith({
  ready: 'next_run_at <= @at',
  sweep: sweepWith({ release: (job) => ({ to: 'retry', reason: `lease of ${job.leased_by} expired at ${job.lease_until}` }) }),
});
