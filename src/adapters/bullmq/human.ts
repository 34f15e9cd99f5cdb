import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { HumanOps } from '../../port/adapter.js';
import type { SagaStore } from '../../port/checkpoint.js';
import { parseJobData, type QueueKeys } from './job-data.js';

/** BullMQ's answers to a retry of a job no longer in its failed set: gone (-1) or moved (-3) (src/classes/scripts.ts, finishedErrors). */
const LEFT_REVIEW = /Missing key for job|is not in the failed state/;

/** What a person's requeue needs of its connection. */
export interface HumanContext {
  client: Redis;
  queue: Queue;
  keys: QueueKeys;
  saga: SagaStore;
}

/*
 * A person's requeue: Job.retry('failed') (BullMQ's reprocessJob) moves the
 * job from the failed set back to wait; attemptsMade stays, so BullMQ allows
 * it exactly one more failed attempt.
 *
 * The checkpoints (the approval, then the requeue) go to the saga file beside
 * the run, which cannot commit with Redis, so they are written first: a worker
 * may claim the job the moment it is back in wait, and it must find the
 * approval there. They are written under the epoch that delivery will have:
 * BullMQ raises `ats` by one at every start (prepareJobForProcessing.lua) and
 * a retry keeps it, so the next start is ats + 1. Under the current epoch the
 * claimer's logFor would have raised the file's floor past it and the
 * approval would be refused; under the next one the claimer opens the same
 * epoch and reads it. Raising the floor now fences off only the holder that
 * sent the job to review, which has settled.
 *
 * The retry after them does not fail on the way (the connection waits out a
 * lost server: maxRetriesPerRequest null), only by BullMQ's answer that the
 * job left the failed set, gone or requeued by another person meanwhile. The
 * checkpoints then name a delivery that never comes, or the one that other
 * requeue made, of the same prepared step: nothing runs that was not
 * approved, and no job waits in review behind an approval no requeue
 * follows. That is answered false, as for a job not in review. Only this
 * process dying between the two leaves the approval without its move.
 */
export function humanOps(context: HumanContext): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const job = await context.queue.getJob(jobId);
      if (!job || !(await job.isFailed())) return false;
      const next = job.attemptsStarted + 1;
      const log = await context.saga.logFor({ jobId, attempt: next, epoch: next, holder: `human:${by}` });
      if (checkpoint) await log.append({ ...checkpoint, detail: checkpoint.detail ?? note });
      const key = parseJobData(JSON.stringify(job.data)).key;
      await log.append({ stepId: '(job)', action: 'requeue', key, status: 'success', detail: note });
      // Before the move: once the job is back in wait, its next holder may send it to review awaiting another approval.
      await context.client.hdel(context.keys.outcomes, jobId);
      try {
        await job.retry('failed');
      } catch (error) {
        if (error instanceof Error && LEFT_REVIEW.test(error.message)) return false;
        throw error;
      }
      return true;
    },
  };
}
