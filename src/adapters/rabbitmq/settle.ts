import type { Channel, Message } from 'amqplib';
import type { Claim, Settlement, WriteResult } from '../../port/delivery.js';
import type { ObservedRecord, RecordStep } from '../broker-record/observed-record.js';
import type { QueueType } from './options.js';

/** How long a settlement waits for RabbitMQ's answer to the round trip that confirms it. */
const CONFIRM_WITHIN_MS = 15_000;

/** One delivery in a holder's hands: the channel it came on (its hold on the message) and the message. */
export interface HeldMessage {
  channel: Channel;
  message: Message;
  claim: Claim;
  /** The work queue, for the round trip. */
  queue: string;
  queueType: QueueType;
}

/**
 * Sends an ack, nack or reject and waits for a round trip on the same channel.
 * AMQP answers none of the three, but a channel's frames are handled in
 * order: when a later call on it is answered, the broker has taken the
 * settlement (an unknown delivery would have closed the channel first). A
 * channel RabbitMQ already closed (it gave the message to another consumer
 * when this holder's connection went silent) refuses it: the stale holder's
 * write never lands. Answers why it was refused, or null once confirmed.
 */
async function confirmed(held: HeldMessage, send: (channel: Channel, message: Message) => void): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    send(held.channel, held.message);
    const answer = held.channel.checkQueue(held.queue);
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from RabbitMQ within ${CONFIRM_WITHIN_MS} ms`)), CONFIRM_WITHIN_MS);
    });
    await Promise.race([answer, late]);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

function free(): RecordStep['set'] {
  return { holder: null, leaseUntil: null };
}

/** The settlement's write to RabbitMQ, and what the record shows once the broker took it. */
function planOf(held: HeldMessage, settlement: Exclude<Settlement, { kind: 'lease_lost' }>) {
  const lastAttempt = held.claim.attempt >= held.claim.maxAttempts;
  switch (settlement.kind) {
    case 'done':
      return {
        send: (channel: Channel, message: Message) => channel.ack(message),
        step: { to: 'done', reason: 'acknowledged', set: { ...free(), outcome: 'done', resultDigest: settlement.digest } } as const,
      };
    case 'retry':
      // On its last attempt the consumer rejects it, as a careful RabbitMQ consumer does (a classic queue counts nothing;
      // a quorum queue would dead-letter the nacked message at its limit anyway, but the record could not write that as
      // the one change it is). A holder that dies on its last attempt is left to the quorum queue's limit.
      if (lastAttempt) {
        const reason = `retries exhausted: its last attempt (${held.claim.attempt} of ${held.claim.maxAttempts}) failed; rejected to the dead-letter queue`;
        return {
          send: (channel: Channel, message: Message) => channel.reject(message, false),
          step: { to: 'review', reason, set: { ...free(), outcome: 'review', reviewReason: reason, lastError: settlement.error } } as const,
        };
      }
      return {
        returnsToQueue: true,
        send: (channel: Channel, message: Message) => channel.nack(message, false, true),
        step: { to: 'retry', reason: 'nacked with requeue', retryDelayMs: 0, set: { ...free(), lastError: settlement.error } } as const,
      };
    case 'review':
      return {
        send: (channel: Channel, message: Message) => channel.reject(message, false),
        step: {
          to: 'review',
          reason: settlement.reason,
          set: {
            ...free(),
            outcome: settlement.awaitingApproval ? 'awaiting_approval' : 'review',
            reviewReason: settlement.reason,
            lastError: settlement.error ?? null,
          },
        } as const,
      };
    case 'compensate': {
      const reason = `to compensate (RabbitMQ has no compensating state): ${settlement.reason}`;
      return {
        send: (channel: Channel, message: Message) => channel.reject(message, false),
        step: { to: 'review', reason, set: { ...free(), outcome: 'review', reviewReason: reason, lastError: settlement.error } } as const,
      };
    }
    default: {
      const unreachable: never = settlement;
      throw new Error(`unknown settlement ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Writes `step` for the holder of `claim`, only while the record still shows
 * it holding the job (no later delivery was written); true when written.
 */
function recordWhileHeld(record: ObservedRecord, claim: Claim, step: RecordStep): boolean {
  let written = false;
  record.change(claim.jobId, (job) => {
    written = job.status === 'running' && job.holder === claim.holder && job.epoch === claim.epoch;
    return written ? [step] : [];
  });
  return written;
}

/**
 * The one write a settlement asks for, and the record of it. An ack or a
 * reject takes the message out of the queue: the record shows the job's new
 * state once RabbitMQ took it, or a refusal when it did not (the holder's
 * channel was gone: the message was given back without it). A nack with
 * requeue puts it back, where RabbitMQ may hand it to another consumer at
 * once: it is written first, so that delivery comes after it in the history;
 * refused or not, the message is back in the queue.
 */
export async function settleHeld(record: ObservedRecord, held: HeldMessage, settlement: Settlement): Promise<WriteResult | null> {
  if (settlement.kind === 'lease_lost') return null;
  const plan = planOf(held, settlement);
  const { claim } = held;
  const step: RecordStep = { ...plan.step, worker: claim.holder, actor: 'worker' };
  const refusal = (why: string): WriteResult => {
    const reason = `RabbitMQ did not take it: ${why}`;
    record.refused(claim.jobId, { to: plan.step.to, epoch: claim.epoch, worker: claim.holder, reason });
    return { ok: false, refused: reason };
  };
  if ('returnsToQueue' in plan) {
    if (!recordWhileHeld(record, claim, step)) {
      await confirmed(held, plan.send);
      return refusal('the message was already delivered to another holder');
    }
    const refused = await confirmed(held, plan.send);
    return refused === null ? { ok: true, status: plan.step.to } : { ok: false, refused: `RabbitMQ had taken it back already: ${refused}` };
  }
  const refused = await confirmed(held, plan.send);
  if (refused !== null) return refusal(refused);
  record.change(claim.jobId, () => [step]);
  return { ok: true, status: plan.step.to };
}

/**
 * Lets go of a held message without a settlement (its attempt ran past its
 * deadline, its handler crashed), written down first while the record shows
 * it held: back to the queue (nack with requeue), or on its last attempt
 * to the dead-letter queue (reject), as RabbitMQ would dead-letter it there.
 */
export async function giveBack(record: ObservedRecord, held: HeldMessage, why: string): Promise<void> {
  const { claim } = held;
  if (claim.attempt >= claim.maxAttempts) {
    const reason = `${why}, on its last attempt (${claim.attempt} of ${claim.maxAttempts}); rejected to the dead-letter queue`;
    const set = { holder: null, leaseUntil: null, outcome: 'review', reviewReason: reason } as const;
    recordWhileHeld(record, claim, { to: 'review', worker: claim.holder, actor: 'worker', reason, set });
    await confirmed(held, (channel, message) => channel.reject(message, false));
    return;
  }
  recordWhileHeld(record, claim, { to: 'retry', worker: claim.holder, actor: 'worker', reason: why, set: { holder: null } });
  await confirmed(held, (channel, message) => channel.nack(message, false, true));
}

/** Rejects a held message to the dead-letter queue, confirmed; true when RabbitMQ took it. */
export async function rejectHeld(held: HeldMessage): Promise<boolean> {
  return (await confirmed(held, (channel, message) => channel.reject(message, false))) === null;
}
