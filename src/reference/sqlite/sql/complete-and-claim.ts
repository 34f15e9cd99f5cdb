import type { JobRow, Lease, LeaseWriteResult } from '../../job.js';
import { type Db, transactionOf } from '../store.js';
import { claim } from './claim.js';
import { complete } from './complete.js';

/** What completing a job and claiming the next for the same worker needs. */
export interface CompleteAndClaimInput {
  lease: Lease;
  resultDigest: string;
  workerId: string;
  leaseMs: number;
  skewMarginMs: number;
  /** Read for each write, as the separate operations read it. */
  now: () => number;
}

function completeThenClaim(db: Db, input: CompleteAndClaimInput): { write: LeaseWriteResult; next: JobRow | null } {
  const write = complete(db, input.lease, input.now(), input.resultDigest);
  // The claim is the reference's own, sweep first: inside this transaction its own becomes a savepoint.
  const next = claim(db, { workerId: input.workerId, now: input.now(), leaseMs: input.leaseMs, skewMarginMs: input.skewMarginMs });
  return { write, next };
}

/**
 * The done write of a held job and the claim of the next ready one for the
 * same worker, in one immediate transaction: BullMQ's moveToFinished hands its
 * worker the next job the same way, and a worker with a backlog then writes one
 * transaction a job instead of two. Each part is what it is alone (the done
 * write guarded by holder and epoch, refused and recorded when stale; the
 * claim sweeping expired leases first), and the next job is claimed whether the
 * done write was applied or refused, as the worker would claim next anyway.
 */
export function completeAndClaim(db: Db, input: CompleteAndClaimInput): { write: LeaseWriteResult; next: JobRow | null } {
  return transactionOf(db, completeThenClaim).immediate(db, input);
}
