import type { Msg } from '@nats-io/transport-node';
import { utc } from '../../kernel/clock.js';
import type { Claim } from '../../port/delivery.js';
import { acknowledge } from './acks.js';
import type { NatsContext } from './context.js';
import { deliverySteps } from './deliveries.js';
import { type Delivered, deliveredOf } from './message.js';
import { ackWaitOf } from './options.js';

/** A delivery taken up by a holder: its claim, and how long JetStream holds it without an ack. */
export interface Taken {
  claim: Claim;
  ackWaitMs: number;
}

/** What happened to a pulled message: taken up, terminated past its job's budget, or not a delivery at all. */
export type TakeOutcome = { kind: 'taken'; taken: Taken } | { kind: 'over-budget'; jobId: string; terminated: boolean } | { kind: 'none' };

function claimOf(d: Delivered, job: { maxAttempts: number }, workerId: string, leaseUntil: string): Claim {
  const epoch = d.attemptsBefore + d.deliveryCount;
  return {
    jobId: d.jobId,
    key: d.body.key,
    action: d.body.action,
    payload: d.body.payload,
    maxAttempts: job.maxAttempts,
    token: d.ackSubject,
    leaseUntil,
    attempt: epoch,
    epoch,
    holder: workerId,
  };
}

/**
 * Takes up a message JetStream delivered to `workerId`: the job and its
 * message noted (a worker may hear of a job before its producer wrote it),
 * the delivery recorded as this holder's claim, its lease counted from
 * `requestedAt` (when the pull went out: JetStream's ack wait starts at its
 * send, which is no earlier, so the lease recorded never ends after the true
 * one). A delivery past its job's budget is terminated unrun, and recorded
 * once JetStream answered the +TERM (unanswered, JetStream delivers it again
 * after its ack wait, and it is terminated then).
 */
export async function takeDelivery(ctx: NatsContext, msg: Msg, workerId: string, requestedAt: number): Promise<TakeOutcome> {
  const d = deliveredOf(msg);
  if (!d) return { kind: 'none' };
  ctx.index.note(d.streamSeq, d.jobId, d.attemptsBefore);
  ctx.record.addJob({ id: d.jobId, ...d.body }, 'producer');
  const settings = await ctx.consumer.read();
  const ackWaitMs = ackWaitOf(d.deliveryCount, settings.ackWaitMs, settings.backoff);
  const leaseUntil = utc(requestedAt + ackWaitMs);
  let overBudget = false;
  const job = ctx.record.change(d.jobId, (now) => {
    const made = deliverySteps(now, d, workerId, leaseUntil);
    overBudget = made.overBudget;
    return made.overBudget ? [] : made.steps;
  });
  if (!job) return { kind: 'none' };
  if (!overBudget) return { kind: 'taken', taken: { claim: claimOf(d, job, workerId, leaseUntil), ackWaitMs } };
  const unanswered = await acknowledge(ctx.nc, d.ackSubject, { kind: 'term' });
  if (unanswered === null) ctx.record.change(d.jobId, (now) => deliverySteps(now, d, workerId, leaseUntil).steps);
  return { kind: 'over-budget', jobId: d.jobId, terminated: unanswered === null };
}
