import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { secretsInPayload, storableError } from '../../kernel/redact.js';
import type { SagaStore } from '../../port/checkpoint.js';
import type { DeliveryHandler, WorkOptions, WriteResult } from '../../port/delivery.js';
import type { ObservedRecord } from '../broker-record/observed-record.js';
import { noteDeadLetters } from './dead-letters.js';
import type { BrokerLink } from './link.js';
import { jobOfMessage } from './message.js';
import type { DrillQueues } from './names.js';
import type { QueueType } from './options.js';
import { claimOf, recordDelivery, recordPastBudget } from './record-delivery.js';
import { giveBack, type HeldMessage, rejectHeld, settleHeld } from './settle.js';

/** What a worker needs of its connection. */
export interface WorkContext {
  link: BrokerLink;
  queues: DrillQueues;
  queueType: QueueType;
  prefetch: number;
  record: ObservedRecord;
  saga: SagaStore;
}

/** One consumer: its own connection (a frozen process's connection goes silent, and RabbitMQ takes its message back), channel and inbox. */
interface Consumer {
  channel: Channel;
  /** The next delivery; null when none came within `waitMs`; 'closed' once the broker closed the channel. */
  next(waitMs: number, stop: AbortSignal): Promise<ConsumeMessage | null | 'closed'>;
  /** Asks RabbitMQ to send no more (basic.cancel); what is held can still be settled. */
  cancel(): Promise<void>;
  close(): Promise<void>;
}

async function openConsumer(context: WorkContext): Promise<Consumer> {
  const connection: ChannelModel = await context.link.dedicated();
  const inbox: ConsumeMessage[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  const ended = () => {
    closed = true;
    notify();
  };
  connection.on('close', ended);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    channel.on('close', ended);
    await channel.prefetch(context.prefetch);
    const { consumerTag } = await channel.consume(
      context.queues.work,
      (message) => {
        // null: RabbitMQ cancelled the consumer (the queue was deleted).
        if (message === null) closed = true;
        else inbox.push(message);
        notify();
      },
      { noAck: false },
    );
    let cancelled = false;
    return {
      channel,
      async next(waitMs, stop) {
        if (inbox.length === 0 && !closed && !stop.aborted) {
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              stop.removeEventListener('abort', done);
              wake = undefined;
              resolve();
            };
            const timer = setTimeout(done, waitMs);
            stop.addEventListener('abort', done, { once: true });
            wake = done;
          });
        }
        return inbox.shift() ?? (closed ? 'closed' : null);
      },
      async cancel() {
        if (cancelled || closed) return;
        cancelled = true;
        await channel.cancel(consumerTag).catch(() => {});
      },
      async close() {
        await connection.close().catch(() => {});
      },
    };
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
}

/** Whether nothing is left to do: no message waits in the work queue, and the record shows no job pending, retrying or running. */
async function drained(context: WorkContext): Promise<boolean> {
  const { read } = await context.link.channels();
  if ((await read.checkQueue(context.queues.work)).messageCount > 0) return false;
  await noteDeadLetters(context.link, context.queues, context.record);
  return !context.record.active();
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/** Runs one delivery: written down, handed to the handler, settled; `last` cancels the consumer before the settlement, so nothing more is sent. */
async function handle(
  context: WorkContext,
  consumer: Consumer,
  message: ConsumeMessage,
  handler: DeliveryHandler,
  options: WorkOptions,
  last: boolean,
) {
  const base = { channel: consumer.channel, message, queue: context.queues.work, queueType: context.queueType };
  let delivered: ReturnType<typeof jobOfMessage>;
  try {
    delivered = jobOfMessage(message);
  } catch (error) {
    // Not the drill's: dead-lettered rather than run or lost.
    options.log({ event: 'foreign-message', error: storableError(error) });
    consumer.channel.reject(message, false);
    return;
  }
  const recorded = recordDelivery(context.record, delivered, options.workerId);
  const claim = claimOf(delivered, recorded, options.workerId, null);
  const held: HeldMessage = { ...base, claim };
  if (recorded.kind === 'past-budget') {
    if (last) await consumer.cancel();
    if (await rejectHeld(held)) recordPastBudget(context.record, claim.jobId, options.workerId);
    options.log({ event: 'past-budget', jobId: claim.jobId, attempt: recorded.attempt, maxAttempts: claim.maxAttempts });
    return;
  }
  options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
  const lost = new AbortController();
  let givenBack = false;
  const giveUp = async (why: string) => {
    if (givenBack) return;
    givenBack = true;
    lost.abort();
    await giveBack(context.record, held, why);
  };
  const deadline =
    options.maxAttemptMs > 0
      ? setTimeout(() => {
          options.log({ event: 'attempt-deadline', jobId: claim.jobId, attempt: claim.attempt, maxAttemptMs: options.maxAttemptMs });
          void giveUp(`given back to the queue at its attempt deadline (${options.maxAttemptMs} ms)`);
        }, options.maxAttemptMs)
      : undefined;
  try {
    const saga = await context.saga.logFor(claim);
    const settlement = await handler({ ...claim, signal: lost.signal, saga });
    clearTimeout(deadline);
    if (last) await consumer.cancel();
    const write: WriteResult | null = givenBack
      ? { ok: false, refused: 'its worker gave the message back at the attempt deadline' }
      : await settleHeld(context.record, held, settlement);
    options.onSettled?.(claim, settlement, write);
  } catch (error) {
    clearTimeout(deadline);
    // A handler that throws is the drill's bug: the message goes back to the queue rather than staying held.
    options.log({ event: 'job-crashed', jobId: claim.jobId, error: storableError(error, secretsInPayload(parsedOrNull(claim.payload))) });
    await giveUp('given back to the queue: its handler crashed');
  }
}

/**
 * Hosts a worker: a consumer with manual acks and the drill's prefetch on a
 * connection of its own, each delivery run by the handler and settled by
 * ack, nack or reject. When RabbitMQ closes the connection (a restart, a
 * channel error) the worker connects again and goes on, as a RabbitMQ
 * client with automatic recovery does.
 */
export async function runWorker(context: WorkContext, handler: DeliveryHandler, options: WorkOptions): Promise<{ processed: number }> {
  let processed = 0;
  const enough = () => options.stop.aborted || (options.maxJobs > 0 && processed >= options.maxJobs);
  const waitMs = Math.max(50, options.pollMs);
  let finished = false;
  while (!enough() && !finished) {
    let consumer: Consumer;
    try {
      consumer = await openConsumer(context);
    } catch (error) {
      // The broker is away (restarting): try again after a poll, as long as the worker is not told to stop.
      options.log({ event: 'worker-error', error: storableError(error) });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      continue;
    }
    const cancel = () => void consumer.cancel();
    options.stop.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        if (enough()) break;
        const message = await consumer.next(waitMs, options.stop);
        if (message === 'closed') break;
        if (message === null) {
          if (options.exitWhenDrained && (await drained(context).catch(() => false))) {
            finished = true;
            break;
          }
          continue;
        }
        const last = options.maxJobs > 0 && processed + 1 >= options.maxJobs;
        await handle(context, consumer, message, handler, options, last);
        processed++;
      }
    } finally {
      options.stop.removeEventListener('abort', cancel);
      await consumer.close();
    }
  }
  return { processed };
}
