import { utc } from '../../kernel/clock.js';
import type { JobStatus } from '../../kernel/vocabulary.js';
import type { Claim, Settlement, WriteResult } from '../../port/delivery.js';
import { retryDelayMs } from '../../port/retry-delay.js';
import type { JobSnapshot } from '../../port/snapshot.js';
import type { JobChanges, RecordStep } from '../broker-record/observed-record.js';
import { type Acknowledgement, acknowledge } from './acks.js';
import type { NatsContext } from './context.js';
import { deliveryOfToken } from './message.js';

/*
 * The one write a settlement asks for, as JetStream's acknowledgement of the
 * holder's delivery, recorded once JetStream answered it:
 *   done        +ACK (JetStream removes the message)       -> done
 *   retry       -NAK with the drill's delay                 -> retry
 *               +TERM on the job's last attempt, or on JetStream's last delivery (a nak there is never redelivered) -> review
 *   review      +TERM (the message leaves the stream)       -> review
 *   compensate  +TERM: JetStream has no compensating state  -> review
 * JetStream answers a stale holder's write as it answers the current
 * holder's, and applies it (probe N1): it is recorded as that holder's write
 * (its worker; its reason names its delivery), and the judge sees who wrote
 * it. A write on a message
 * already gone (its job done, or terminated to review) changes nothing in
 * JetStream, answered or not, and nothing in the record. An exhausted
 * message is still in the stream, and a late ack removes it (probe N3): the
 * job is then recorded as leaving review.
 */

interface Write {
  ack: Acknowledgement;
  to: JobStatus;
  reason: string;
  set: JobChanges;
  retryDelayMs?: number;
}

/** What `settlement` writes for `claim` (delivery `deliveryCount` of its message), or null for nothing (the holder lost it). */
async function writeFor(ctx: NatsContext, claim: Claim, settlement: Settlement, deliveryCount: number): Promise<Write | null> {
  const ended = { holder: null, leaseUntil: null, nextRunAt: null } as const;
  switch (settlement.kind) {
    case 'done':
      return { ack: { kind: 'ack' }, to: 'done', reason: 'acked', set: { ...ended, outcome: 'done', resultDigest: settlement.digest } };
    case 'retry': {
      const { maxDeliver } = await ctx.consumer.read();
      const lastDelivery = maxDeliver > 0 && deliveryCount >= maxDeliver;
      if (claim.attempt >= claim.maxAttempts || lastDelivery) {
        const why = lastDelivery ? `JetStream's last delivery (max_deliver ${maxDeliver})` : `attempt ${claim.attempt} of ${claim.maxAttempts}`;
        const reason = `retries exhausted (${why}): ${settlement.error}`;
        return {
          ack: { kind: 'term' },
          to: 'review',
          reason,
          set: { ...ended, outcome: 'review', reviewReason: reason, lastError: settlement.error },
        };
      }
      const delayMs = retryDelayMs(claim.attempt, ctx.retryDelay, ctx.random);
      return {
        ack: { kind: 'nak', delayMs },
        to: 'retry',
        reason: `nak: redelivery asked in ${delayMs} ms`,
        set: { holder: null, leaseUntil: null, lastError: settlement.error, nextRunAt: utc(ctx.now() + delayMs) },
        retryDelayMs: delayMs,
      };
    }
    case 'review': {
      const outcome = settlement.awaitingApproval ? 'awaiting_approval' : 'review';
      const set = {
        ...ended,
        outcome,
        reviewReason: settlement.reason,
        ...(settlement.error === undefined ? {} : { lastError: settlement.error }),
      } as const;
      return { ack: { kind: 'term' }, to: 'review', reason: `terminated: ${settlement.reason}`, set };
    }
    case 'compensate': {
      const reason = `to compensate (JetStream has no compensating state): ${settlement.reason}`;
      return { ack: { kind: 'term' }, to: 'review', reason, set: { ...ended, outcome: 'review', reviewReason: reason, lastError: settlement.error } };
    }
    case 'lease_lost':
      return null;
    default: {
      const unreachable: never = settlement;
      throw new Error(`unknown settlement ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Whether JetStream still holds the message at `seq` (in the stream: waiting, delivered, or exhausted). */
async function inStream(ctx: NatsContext, seq: number): Promise<boolean | null> {
  try {
    return (await ctx.jsm.streams.getMessage(ctx.stream, { seq })) !== null;
  } catch {
    return null;
  }
}

/**
 * The record's step for a write JetStream answered, from the job as the
 * record has it now. A stale holder's write is recorded as its own (its
 * worker), in the job's history at the job's attempt and epoch (the record's
 * numbering never goes back); its reason names the delivery that wrote it.
 */
function stepFor(job: JobSnapshot, claim: Claim, write: Write, exhaustedAndAcked: boolean): RecordStep[] {
  const gone = job.status === 'done' || job.status === 'review';
  if (gone && !exhaustedAndAcked) return [];
  const stale = job.epoch !== claim.epoch;
  const reason = exhaustedAndAcked
    ? `${write.reason} after JetStream had delivered it max_deliver times and given up on it: JetStream applied the ack (the message is gone)`
    : stale
      ? `${write.reason} by ${claim.holder} under its delivery's epoch ${claim.epoch}, ` +
        `after JetStream had redelivered the job (epoch ${job.epoch}): JetStream accepted it`
      : write.reason;
  return [
    {
      to: write.to,
      worker: claim.holder,
      actor: 'worker',
      reason,
      set: write.set,
      ...(write.retryDelayMs === undefined ? {} : { retryDelayMs: write.retryDelayMs }),
    },
  ];
}

/**
 * Makes `settlement`'s write for `claim` and records it; null when there is
 * nothing to write (the holder lost its job: the ack wait runs out and
 * JetStream redelivers). Refused only when JetStream did not answer (it may
 * still apply the write: an unanswered ack is looked for in the stream).
 */
export async function settleDelivery(ctx: NatsContext, claim: Claim, settlement: Settlement): Promise<WriteResult | null> {
  const delivery = deliveryOfToken(claim.token, claim.epoch);
  if (!delivery) return { ok: false, refused: `no JetStream delivery under token ${String(claim.token)}` };
  const write = await writeFor(ctx, claim, settlement, delivery.ack.deliveryCount);
  if (!write) return null;
  const seq = delivery.ack.streamSeq;
  // A job the record has in review whose message is still in the stream was exhausted: an ack still removes it.
  const before = ctx.record.job(claim.jobId);
  const exhausted = write.ack.kind === 'ack' && before?.status === 'review' && (await inStream(ctx, seq)) === true;
  const unanswered = await acknowledge(ctx.nc, delivery.ackSubject, write.ack);
  if (unanswered !== null) {
    // The answer may be lost while the ack landed: a message gone from a work-queue stream was acked or terminated.
    if (write.ack.kind !== 'ack' || (await inStream(ctx, seq)) !== false) {
      return { ok: false, refused: `JetStream did not answer the ${write.ack.kind} of job ${claim.jobId} (${unanswered}); it may still apply it` };
    }
    write.reason = `${write.reason} (JetStream's answer was lost: the message is gone from the stream)`;
  }
  const job = ctx.record.change(claim.jobId, (now) => stepFor(now, claim, write, exhausted));
  return { ok: true, status: job?.status ?? write.to };
}
