import type { JobStatus } from '../../kernel/vocabulary.js';
import type { Settlement, WorkOptions, WriteResult } from '../../port/delivery.js';
import type { GraphileContext } from './context.js';
import { applicationName } from './identity.js';
import { inTransaction } from './pool.js';
import { failForGood, LAST_CHANGE_BY, LOCK_RELEASED, RECORD_REVIEW_OUTCOME } from './sql.js';
import { failureText, type Settled } from './task.js';

/*
 * After graphile's own write (completeJob or failJob), which tells nobody
 * whether it matched a row: the history trigger does. The last change this
 * worker's connection made to the job is graphile's write if it landed (a
 * delete, or a release), else still this worker's claim: completeJob deleted
 * nothing (the row was gone), or failJob matched no row locked by this worker
 * and graphile ignored it. A review settlement is finished here, by the same
 * connection: the job failJob released is failed for good, fenced to the
 * epoch it was released under (a crash in between leaves it to retry, as the
 * history then shows).
 */

async function lastChange(ctx: GraphileContext, app: string, jobId: string): Promise<{ op: string; locked_by: string | null } | undefined> {
  const { rows } = await ctx.pools.get(app).query<{ op: string; locked_by: string | null }>(LAST_CHANGE_BY(ctx.schema), [jobId, app, 0]);
  return rows[0];
}

/** Fails the released job for good (review), with its reason and the outcome the worker gave it; false when it moved on meanwhile. */
async function sendToReview(
  ctx: GraphileContext,
  app: string,
  settled: Settled,
  reason: string,
  outcome: 'review' | 'awaiting_approval',
): Promise<boolean> {
  return inTransaction(ctx.pools.get(app), async (client) => {
    const found = await client.query(LOCK_RELEASED(ctx.schema), [settled.claim.jobId, settled.claim.epoch, app]);
    if (found.rowCount === 0) return false;
    await failForGood(client, ctx.schema, settled.claim.jobId, settled.claim.epoch, reason);
    await client.query(RECORD_REVIEW_OUTCOME(ctx.schema), [settled.claim.jobId, outcome, settled.claim.epoch]);
    return true;
  });
}

function reviewOutcome(settlement: Settlement): 'review' | 'awaiting_approval' {
  return settlement.kind === 'review' && settlement.awaitingApproval === true ? 'awaiting_approval' : 'review';
}

/** What graphile's write did, read from the history; for a review, its completion. */
async function writeResult(ctx: GraphileContext, workerId: string, settled: Settled, settlement: Settlement): Promise<WriteResult | null> {
  const app = applicationName('worker', workerId);
  if (settlement.kind === 'lease_lost') return null;
  const change = await lastChange(ctx, app, settled.claim.jobId);
  if (settlement.kind === 'done') {
    return change?.op === 'DELETE' ? { ok: true, status: 'done' } : { ok: false, refused: 'completeJob deleted nothing: the row was already gone' };
  }
  if (change?.op !== 'UPDATE' || change.locked_by !== null) {
    return { ok: false, refused: 'failJob matched no row locked by this worker (graphile ignores that silently)' };
  }
  if (settlement.kind === 'review' || settlement.kind === 'compensate') {
    const reason = failureText(settled.claim, settlement);
    if (!(await sendToReview(ctx, app, settled, reason, reviewOutcome(settlement)))) {
      return { ok: false, refused: 'released by failJob, but taken by another before permanentlyFailJobs' };
    }
    return { ok: true, status: 'review' };
  }
  const status: JobStatus = settled.claim.attempt >= settled.claim.maxAttempts ? 'review' : 'retry';
  return { ok: true, status };
}

/** Finishes one job after graphile's write, and tells the drill how it was settled. */
export async function afterGraphileWrite(ctx: GraphileContext, workerId: string, settled: Settled, options: WorkOptions): Promise<void> {
  if (!settled.settlement) return;
  const write = await writeResult(ctx, workerId, settled, settled.settlement);
  options.onSettled?.(settled.claim, settled.settlement, write);
}
