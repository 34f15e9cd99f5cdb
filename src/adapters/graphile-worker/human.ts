import type { HumanOps } from '../../port/adapter.js';
import type { GraphileContext } from './context.js';
import { applicationName } from './identity.js';
import { inTransaction } from './pool.js';
import { LOCK_REVIEW, RESCHEDULE_ONE_MORE } from './sql.js';

/*
 * A person's way out of review: graphile's rescheduleJobs (its documented
 * admin function) on a job that failed for good, run at once with one more
 * attempt allowed. The trigger records it under the person's connection; the
 * `requeue` checkpoint goes beside the run, after the reschedule committed.
 */
export function humanOps(ctx: GraphileContext): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const row = await inTransaction(ctx.pools.get(applicationName('human', by)), async (client) => {
        const found = await client.query<{ attempts: number; key: string | null }>(LOCK_REVIEW(ctx.schema), [jobId]);
        const review = found.rows[0];
        if (review) await client.query(RESCHEDULE_ONE_MORE(ctx.schema), [jobId, review.attempts + 1]);
        return review ?? null;
      });
      if (row === null) return false;
      // A person's checkpoints carry the job's attempt and epoch at that moment.
      const writer = { jobId, attempt: row.attempts, epoch: row.attempts, holder: `human:${by}` };
      if (checkpoint) ctx.saga.append(writer, checkpoint);
      ctx.saga.append(writer, { stepId: '(job)', action: 'requeue', key: row.key ?? '', status: 'success', detail: note });
      return true;
    },
  };
}
