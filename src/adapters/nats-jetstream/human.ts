import { utc } from '../../kernel/clock.js';
import type { HumanOps } from '../../port/adapter.js';
import type { NatsContext } from './context.js';
import { PUBLISH_TIMEOUT_MS } from './enqueue.js';
import { encodeBody, jobHeaders } from './message.js';

/*
 * A person's requeue. JetStream has no way to deliver a terminated or
 * exhausted message again (a terminated one has left the stream; an
 * exhausted one stays, but its consumer will never deliver it), so a JetStream
 * user's requeue publishes the job again: a new message, under a message id
 * of its own (the key's would be a duplicate within the window), carrying the
 * job's id and the attempts it had, so its deliveries count on from there and
 * the record keeps one job. One more attempt is allowed, as the reference's
 * requeue: max(max_attempts, attempts + 1). An exhausted message left behind
 * is deleted from the stream (its late ack could otherwise still remove it).
 *
 * The checkpoints (the approval, then the requeue) go to the saga file
 * first, under the epoch the new message's first delivery will have
 * (attempts + 1): its holder must find them there, and under the current
 * epoch that holder's logFor would have raised the floor past them. Then the
 * record's review -> pending (a person's step, in one transaction that finds
 * the job still in review, so two persons cannot both requeue it), then the
 * publish. A publish that fails after that leaves the job pending in the
 * record with no message: the error is thrown, for a person to see.
 */
export function humanOps(ctx: NatsContext): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const job = ctx.record.job(jobId);
      if (job?.status !== 'review') return false;
      const next = job.attempts + 1;
      const log = await ctx.saga.logFor({ jobId, attempt: next, epoch: next, holder: `human:${by}` });
      if (checkpoint) await log.append({ ...checkpoint, detail: checkpoint.detail ?? note });
      await log.append({ stepId: '(job)', action: 'requeue', key: job.key, status: 'success', detail: note });
      let requeued = false;
      const after = ctx.record.change(jobId, (now) => {
        if (now.status !== 'review' || now.attempts !== job.attempts) return [];
        requeued = true;
        return [
          {
            to: 'pending',
            worker: null,
            actor: 'human',
            reason: `requeued by ${by}: ${note} (published again as a new message)`,
            set: {
              maxAttempts: Math.max(now.maxAttempts, now.attempts + 1),
              outcome: null,
              reviewReason: null,
              holder: null,
              leaseUntil: null,
              nextRunAt: utc(ctx.now()),
            },
          },
        ];
      });
      if (!requeued || !after) return false;
      const left = ctx.index.current(jobId) ?? { seq: Number(jobId), attemptsBefore: 0 };
      const body = { key: job.key, action: job.action, payload: job.payload, maxAttempts: after.maxAttempts };
      const ack = await ctx.js.publish(ctx.subject, encodeBody(body), {
        msgID: `${job.key}#requeue-${job.attempts}`,
        headers: jobHeaders(body, { jobId, attemptsBefore: job.attempts }),
        timeout: PUBLISH_TIMEOUT_MS,
      });
      ctx.index.note(ack.seq, jobId, job.attempts);
      if (left.seq !== ack.seq) await ctx.jsm.streams.deleteMessage(ctx.stream, left.seq, false).catch(() => false);
      return true;
    },
  };
}
