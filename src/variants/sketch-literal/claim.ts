import { type Claimer, claimWith } from '../../reference/sqlite/sql/claim.js';
import { REFERENCE_CLAIM_RULES } from '../../reference/sqlite/sql/claim-rules.js';

/**
 * The seed's claim_one, as written: BEGIN IMMEDIATE, the oldest pending or retry
 * job whose lease (if any) has run out, taken by its id alone. Nothing sweeps
 * expired leases first, and only pending and retry jobs are looked at, so a job
 * whose worker died stays `running` and is never claimed again. (The history
 * row of each claim is ours, not the seed's: kept so a drill can show what happened.)
 */
export const sketchLiteralClaim: Claimer = claimWith({
  ready: `${REFERENCE_CLAIM_RULES.ready} AND (lease_until IS NULL OR lease_until < @at)`,
  sweep: null,
  guard: 'id',
});
