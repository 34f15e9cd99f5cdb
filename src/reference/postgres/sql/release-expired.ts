import type { Queryable } from '../../../adapters/pg/queryable.js';
import type { ExpiredLeaseRelease } from '../../../port/adapter.js';
import type { TxEntry } from '../../../port/checkpoint.js';
import { appendCheckedTx } from './append-tx.js';
import { type ExpiredJob, releaseExpiredLease } from './sweep-expired-leases.js';

/**
 * The coordinator takes one expired lease back, with what it learned (a
 * reconciliation's answer) as a checkpoint under the expired lease's epoch, in
 * the caller's transaction. When the lease is no longer the expired one (a
 * zombie's heartbeat revived it, a claim swept it first), the release writes
 * nothing and neither does the checkpoint: false, with nothing to roll back.
 */
export async function releaseExpired(
  db: Queryable,
  job: ExpiredJob,
  release: ExpiredLeaseRelease,
  input: { by: string; skewMarginMs: number; checkpoint?: TxEntry | undefined },
): Promise<boolean> {
  if (!(await releaseExpiredLease(db, job, release, { skewMarginMs: input.skewMarginMs, actor: 'coordinator', worker: input.by }))) return false;
  if (input.checkpoint) {
    await appendCheckedTx(db, { jobId: job.id, attempt: job.attempts, epoch: job.lease_fence, worker: input.by }, input.checkpoint);
  }
  return true;
}
