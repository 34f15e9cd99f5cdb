import type { GetMessage } from 'amqplib';
import type { JobSnapshot } from '../../port/snapshot.js';
import type { ObservedRecord } from '../broker-record/observed-record.js';
import type { BrokerLink } from './link.js';
import type { DrillQueues } from './names.js';

/*
 * RabbitMQ dead-letters a message on its own (a quorum queue past its
 * x-delivery-limit, the return of a holder that died on its last attempt)
 * without telling any consumer. The dead-letter queue is where the record
 * learns of it: each message there not yet in review in the record is
 * written down as reviewed, with the broker's reason (x-first-death-reason).
 * The messages are only looked at: taken without ack on a channel of their
 * own, which is then closed, so they go back where they were.
 */

/** Why RabbitMQ dead-lettered a message on its own, in words; null for a consumer's reject, which that consumer writes down itself. */
function deathReason(message: GetMessage, job: JobSnapshot): string | null {
  const reason = String(message.properties.headers?.['x-first-death-reason'] ?? 'unknown');
  const attempts = `(${job.attempts} of ${job.maxAttempts})`;
  switch (reason) {
    case 'rejected':
      return null;
    case 'delivery_limit':
      return `dead-lettered by RabbitMQ at its x-delivery-limit: ${job.holder ?? 'its holder'} let it go on its last attempt ${attempts}`;
    default:
      return `dead-lettered by RabbitMQ (${reason}) on attempt ${attempts}`;
  }
}

/** Writes down the dead-lettered messages the record does not show in review yet; answers how many it wrote. */
export async function noteDeadLetters(link: BrokerLink, queues: DrillQueues, record: ObservedRecord): Promise<number> {
  const { read } = await link.channels();
  const { messageCount } = await read.checkQueue(queues.deadLetters);
  // Every job in review has its message there: no more messages than that, nothing new.
  if (messageCount <= record.countIn('review')) return 0;
  const channel = await link.scratchChannel();
  let noted = 0;
  try {
    for (;;) {
      const message = await channel.get(queues.deadLetters, { noAck: false });
      if (message === false) break;
      const id = message.properties.messageId as unknown;
      if (typeof id !== 'string') continue;
      const job = record.job(id);
      if (job === undefined || job.status === 'review') continue;
      const reason = deathReason(message, job);
      if (reason === null) continue;
      record.change(id, (job) =>
        job.status === 'review'
          ? []
          : [
              {
                to: 'review',
                worker: null,
                actor: 'coordinator',
                reason,
                set: { holder: null, leaseUntil: null, outcome: 'review', reviewReason: reason },
              },
            ],
      );
      noted++;
    }
  } finally {
    await channel.close().catch(() => {});
  }
  return noted;
}
