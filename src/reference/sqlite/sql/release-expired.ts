import type { ExpiredLeaseRelease } from '../../../port/adapter.js';
import type { TxEntry } from '../../../port/checkpoint.js';
import type { ExpiredLease } from '../../lease-store.js';
import type { Db } from '../store.js';
import { appendCheckedTx } from './append-tx.js';
import { releaseExpiredLease } from './sweep-expired-leases.js';

/**
 * The coordinator takes one expired lease back, with what it learned (a
 * reconciliation's answer) as a checkpoint under the expired lease's epoch:
 * both commit in one immediate transaction, or neither does when the lease is
 * no longer the expired one (a zombie's heartbeat revived it, or a claim swept it first).
 */
export function releaseExpired(
  db: Db,
  job: ExpiredLease,
  release: ExpiredLeaseRelease,
  input: { by: string; now: number; skewMarginMs: number; checkpoint?: TxEntry | undefined; recorded?: boolean },
): boolean {
  return db
    .transaction((): boolean => {
      const sweep = { now: input.now, skewMarginMs: input.skewMarginMs, actor: 'coordinator' as const, worker: input.by };
      if (!releaseExpiredLease(db, job, release, sweep, input.recorded ?? true)) return false;
      if (input.checkpoint)
        appendCheckedTx(db, { jobId: job.id, attempt: job.attempts, epoch: job.lease_fence, worker: input.by }, input.checkpoint, input.now);
      return true;
    })
    .immediate();
}
