import { join } from 'node:path';
import type { Provisioned, ProvisionRequest } from '../../port/adapter.js';
import { maskAmqpUrl, openAmqp, resolveAmqpUrl } from './amqp.js';
import { deliveryLimitFor } from './fit.js';
import { type DrillQueues, prefixFor, queuesOf } from './names.js';
import { type QueueType, rabbitmqOptions } from './options.js';

/** Where the drill's processes find the broker, the record and the saga file (never their command line: a URL may carry a password). */
export const URL_ENV = 'QD_AMQP_URL';
export const RECORD_FILE_ENV = 'QD_RABBITMQ_RECORD_FILE';
export const SAGA_FILE_ENV = 'QD_RABBITMQ_SAGA_FILE';

/** The attempt budget a queue is declared with when the caller names none. */
const DEFAULT_MAX_ATTEMPTS = 3;

/** The work queue's arguments: its type, the dead-letter exchange, and on a quorum queue the delivery limit. */
export function workQueueArguments(queues: DrillQueues, queueType: QueueType, maxAttempts: number): Record<string, unknown> {
  return {
    'x-queue-type': queueType,
    'x-dead-letter-exchange': queues.deadLetterExchange,
    ...(queueType === 'quorum' ? { 'x-delivery-limit': deliveryLimitFor(maxAttempts) } : {}),
  };
}

/**
 * Makes one drill's queues on the broker: a durable work queue (quorum by
 * default, its x-delivery-limit from the largest attempt budget of the
 * drill's jobs) dead-lettering to a fanout exchange bound to a classic
 * dead-letter queue, the drill's review. The record and the saga's
 * checkpoints live in the run directory. Teardown deletes the queues and the
 * exchange unless kept.
 */
export async function provisionRabbitmq(request: ProvisionRequest): Promise<Provisioned> {
  const url = resolveAmqpUrl(request.servers.amqpUrl);
  const options = rabbitmqOptions(request.options ?? {});
  const prefix = prefixFor(request.runId);
  const queues = queuesOf(prefix);
  const largest = Math.max(...(request.maxAttempts ?? []), 1);
  const maxAttempts = request.maxAttempts?.length ? largest : DEFAULT_MAX_ATTEMPTS;
  const connection = await openAmqp(url, 0);
  try {
    const channel = await connection.createChannel();
    await channel.assertExchange(queues.deadLetterExchange, 'fanout', { durable: true, autoDelete: false });
    await channel.assertQueue(queues.deadLetters, { durable: true, arguments: { 'x-queue-type': 'classic' } });
    await channel.bindQueue(queues.deadLetters, queues.deadLetterExchange, '');
    await channel.assertQueue(queues.work, { durable: true, arguments: workQueueArguments(queues, options.queueType, maxAttempts) });
  } catch (error) {
    await deleteQueues(url, queues).catch(() => {});
    throw error;
  } finally {
    await connection.close().catch(() => {});
  }
  return {
    locator: prefix,
    env: {
      [URL_ENV]: url,
      [RECORD_FILE_ENV]: join(request.runDir, 'rabbitmq-record.db'),
      [SAGA_FILE_ENV]: join(request.runDir, 'rabbitmq-saga.db'),
    },
    where: `${maskAmqpUrl(url)} queues ${queues.work} (${options.queueType}, max_attempts ${maxAttempts}) and ${queues.deadLetters}`,
    teardown: async ({ keep }) => {
      if (!keep) await deleteQueues(url, queues);
    },
  };
}

/** Deletes a drill's queues and exchange; nothing to delete is fine. */
export async function deleteQueues(url: string, queues: DrillQueues): Promise<void> {
  const connection = await openAmqp(url, 0);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queues.work);
    await channel.deleteQueue(queues.deadLetters);
    await channel.deleteExchange(queues.deadLetterExchange);
  } finally {
    await connection.close().catch(() => {});
  }
}
