import type { Message } from 'amqplib';
import type { NewJob } from '../broker-record/observed-record.js';

/*
 * A job as a message: the payload is the body, the job id the message id,
 * and the rest travels in headers, as a RabbitMQ user's producer would put it.
 */

const HEADERS = {
  key: 'qd-key',
  action: 'qd-action',
  maxAttempts: 'qd-max-attempts',
  /** Attempts the job had before this message was published (a person's requeue publishes it again). */
  attemptsBefore: 'qd-attempts-before',
} as const;

/** What publishing a job sends. */
export function messageFor(
  job: NewJob,
  attemptsBefore: number,
): { content: Buffer; options: { messageId: string; persistent: true; headers: Record<string, unknown>; contentType: string } } {
  return {
    content: Buffer.from(job.payload, 'utf8'),
    options: {
      messageId: job.id,
      persistent: true,
      contentType: 'application/json',
      headers: {
        [HEADERS.key]: job.key,
        [HEADERS.action]: job.action,
        [HEADERS.maxAttempts]: job.maxAttempts,
        [HEADERS.attemptsBefore]: attemptsBefore,
      },
    },
  };
}

/** A delivered message read back: the job it carries, and how the broker counted its deliveries. */
export interface DeliveredJob extends NewJob {
  attemptsBefore: number;
  /** Earlier deliveries of this message (a quorum queue's x-delivery-count); null where the queue counts none (a classic queue). */
  deliveryCount: number | null;
  /** RabbitMQ's redelivered flag: the message was delivered before (to someone). */
  redelivered: boolean;
}

/** The job a message carries; throws for a message the drill did not publish. */
export function jobOfMessage(message: Message): DeliveredJob {
  const headers = (message.properties.headers ?? {}) as Record<string, unknown>;
  const id = message.properties.messageId as unknown;
  const key = headers[HEADERS.key];
  const action = headers[HEADERS.action];
  if (typeof id !== 'string' || typeof key !== 'string' || typeof action !== 'string') {
    throw new Error("a message without the drill's job headers (message id, qd-key, qd-action)");
  }
  const count = headers['x-delivery-count'];
  return {
    id,
    key,
    action,
    payload: message.content.toString('utf8'),
    maxAttempts: Number(headers[HEADERS.maxAttempts] ?? 1),
    attemptsBefore: Number(headers[HEADERS.attemptsBefore] ?? 0),
    deliveryCount: typeof count === 'number' ? count : null,
    redelivered: message.fields.redelivered,
  };
}
