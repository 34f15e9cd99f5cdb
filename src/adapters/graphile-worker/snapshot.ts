import type { QueueSnapshot } from '../../port/snapshot.js';
import type { GraphileContext } from './context.js';
import { readHistory, readReviewOutcomes } from './history-rows.js';
import { applicationName } from './identity.js';
import { rebuild } from './job-history.js';

/*
 * What graphile knows, read from the trigger's history: the live table cannot
 * say it, since completed jobs are deleted. Every job the trigger saw is
 * reported, done ones from their last image before the delete.
 */

/** Every job and (unless `history: false`) every transition. */
export async function snapshot(ctx: GraphileContext, options?: { history?: boolean }): Promise<QueueSnapshot> {
  const pool = ctx.pools.get(applicationName('worker', 'observer'), 1);
  const [rows, outcomes] = await Promise.all([readHistory(pool, ctx.schema), readReviewOutcomes(pool, ctx.schema)]);
  const { jobs, history } = rebuild(rows, ctx.lockHeldMs, outcomes);
  return { jobs, history: options?.history === false ? [] : history };
}

/** Changes whenever the table changes: the newest history entry. */
export async function progress(ctx: GraphileContext): Promise<string> {
  const { rows } = await ctx.pools
    .get(applicationName('worker', 'observer'), 1)
    .query<{ seq: string }>(`SELECT coalesce(max(seq), 0)::text AS seq FROM "${ctx.schema}".qd_history`);
  return rows[0]?.seq ?? '0';
}
