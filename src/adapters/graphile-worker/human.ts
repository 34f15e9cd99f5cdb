import type { HumanOps } from '../../port/adapter.js';
import type { GraphileContext } from './context.js';
import { applicationName } from './identity.js';
import { inTransaction } from './pool.js';
import { LOCK_REVIEW, RESCHEDULE_ONE_MORE } from './sql.js';

/*
 * A person's way out of review: graphile's rescheduleJobs (its documented
 * admin function) on a job that failed for good, run at once with one more
 * attempt allowed (as the reference: max_attempts at least attempts + 1, and
 * not below what it was enqueued with). The trigger records it under the person's connection; the
 * `requeue` checkpoint goes beside the run, written while the job's row is
 * locked, before the reschedule commits (a checkpoint without its reschedule is
 * possible if the commit fails; a claim before the checkpoint is not).
 */
export function humanOps(ctx: GraphileContext): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const requeued = await inTransaction(ctx.pools.get(applicationName('human', by)), async (client) => {
        const found = await client.query<{ attempts: number; key: string | null; enqueued_max: number | null }>(LOCK_REVIEW(ctx.schema), [jobId]);
        const review = found.rows[0];
        if (!review) return false;
        // Written while the row is locked (get_job skips locked rows): no worker can claim the job before it sees them.
        const writer = { jobId, attempt: review.attempts, epoch: review.attempts, holder: `human:${by}` };
        if (checkpoint) ctx.saga.append(writer, checkpoint);
        ctx.saga.append(writer, { stepId: '(job)', action: 'requeue', key: review.key ?? '', status: 'success', detail: note });
        // One more attempt, and never fewer than it was enqueued with (a review lowered max_attempts to the attempts made).
        await client.query(RESCHEDULE_ONE_MORE(ctx.schema), [jobId, Math.max(review.enqueued_max ?? 0, review.attempts + 1)]);
        return true;
      });
      if (!requeued) return false;
      return true;
    },
  };
}
