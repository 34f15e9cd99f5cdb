import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';

/**
 * The reference claim (one immediate transaction, the lease sweep first),
 * except that the take never counts the attempt. The fence still moves, so
 * every lease is still told apart; only the count of tries is never kept.
 */
export const uncountedClaim: Claimer = claimWith({ countsAttempt: false });
