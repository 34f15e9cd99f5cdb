import { utc } from '../../kernel/clock.js';
import type { ExpiredLeaseRelease, TakeoverOps } from '../../port/adapter.js';
import type { TxEntry } from '../../port/checkpoint.js';
import type { Claim } from '../../port/delivery.js';
import { quoteIdent } from '../pg/identifier.js';
import { GRAPHILE_SWEEP_MS, type GraphileContext } from './context.js';
import { applicationName } from './identity.js';
import { inTransaction } from './pool.js';
import { FORCE_UNLOCK, failForGood, LOCK_EXPIRED, LOCKED_LONGER_THAN, RECORD_REVIEW_OUTCOME } from './sql.js';

/*
 * Only with release_dead_locks (the connection offers these hooks then, and
 * not otherwise). graphile-worker has no lease: a locked job stays locked until
 * its worker settles it, or until graphile's own sweep frees locks older than
 * 4 hours. A deployment may add a piece that frees a dead worker's job sooner,
 * with graphile's documented admin function forceUnlockWorkers, which "must
 * never be given a live worker's id". The drill's coordinator plays that
 * piece, for workers whose lock is older than the drill's lease (plus the skew
 * margin): an assumption the deployment makes (a lock that old is a dead
 * worker's), reported as such. A worker that is merely paused, or slow, is
 * unlocked all the same: that is what the assumption costs, and the drill
 * shows it.
 */

interface LockedRow {
  id: string;
  key: string | null;
  payload: string;
  attempts: number;
  max_attempts: number;
  locked_by: string;
  locked_at: Date;
}

function claimOf(row: LockedRow, leaseMs: number): Claim {
  const stored = JSON.parse(row.payload) as { action?: unknown; payload?: unknown };
  return {
    jobId: row.id,
    key: row.key ?? '',
    action: String(stored.action ?? ''),
    payload: typeof stored.payload === 'string' ? stored.payload : '{}',
    maxAttempts: row.max_attempts,
    attempt: row.attempts,
    epoch: row.attempts,
    // The graphile worker id, as forceUnlockWorkers must be given it.
    holder: row.locked_by,
    token: null,
    leaseUntil: utc(row.locked_at.getTime() + leaseMs),
  };
}

/** Frees the dead holder's lock with forceUnlockWorkers, fenced to the one job, epoch and holder; false when it moved on. */
async function release(ctx: GraphileContext, expired: Claim, to: ExpiredLeaseRelease, by: string, checkpoint?: TxEntry): Promise<boolean> {
  return inTransaction(ctx.pools.get(applicationName('coordinator', by)), async (client) => {
    const found = await client.query(LOCK_EXPIRED(ctx.schema), [expired.jobId, expired.epoch, expired.holder, ctx.leaseMs + ctx.skewMarginMs]);
    if (found.rowCount === 0) return false;
    // Beside the run, under the expired lease's epoch, while the row is locked: the next holder sees it.
    if (checkpoint) ctx.saga.append({ jobId: expired.jobId, attempt: expired.attempt, epoch: expired.epoch, holder: by }, checkpoint);
    await client.query(FORCE_UNLOCK(ctx.schema), [expired.holder]);
    if (to.to === 'review') {
      await failForGood(client, ctx.schema, expired.jobId, expired.epoch, to.reason);
      await client.query(RECORD_REVIEW_OUTCOME(ctx.schema), [expired.jobId, 'review', expired.epoch]);
    }
    return true;
  });
}

/** The takeover hooks the drill's coordinator calls. */
export function takeoverOps(ctx: GraphileContext): TakeoverOps {
  const lockedLongerThan = async (ms: number): Promise<Claim[]> => {
    const { rows } = await ctx.pools.get(applicationName('coordinator', 'sweep')).query<LockedRow>(LOCKED_LONGER_THAN(ctx.schema), [ms]);
    return rows.map((row) => claimOf(row, ctx.leaseMs));
  };
  return {
    // As graphile's own tests do: the lock is backdated past its 4-hour sweep (and so past any lease of the drill).
    async expireLease(jobId) {
      await ctx.pools
        .get(applicationName('coordinator', 'test'))
        .query(`UPDATE ${quoteIdent(ctx.schema)}._private_jobs SET locked_at = locked_at - interval '4 hours 1 minute' WHERE id = $1::bigint`, [
          jobId,
        ]);
    },
    expiredLeases: () => lockedLongerThan(ctx.leaseMs + ctx.skewMarginMs),
    releaseExpired: (expired, to, by, checkpoint?: TxEntry) => release(ctx, expired, to, by, checkpoint),
    // graphile's own upkeep: the sweep of locks older than 4 hours, done through the same admin function.
    async maintain() {
      let moved = 0;
      for (const job of await lockedLongerThan(GRAPHILE_SWEEP_MS)) {
        const to: ExpiredLeaseRelease = { to: job.attempt >= job.maxAttempts ? 'review' : 'retry', reason: 'locked for more than 4 hours' };
        if (await release(ctx, job, to, 'maintenance')) moved++;
      }
      return moved;
    },
  };
}
