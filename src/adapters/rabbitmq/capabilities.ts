import type { Capabilities } from '../../port/adapter.js';

/**
 * What RabbitMQ can show. It keeps no job table: the history is the record
 * the drill's processes write of what the broker did (../broker-record), each
 * entry at the moment the broker's answer came back.
 */
export const RABBITMQ_CAPABILITIES: Capabilities = {
  evidence: {
    history: true,
    // A stale holder's ack is confirmed by a round trip on its channel; RabbitMQ closed that channel when it gave the message back.
    refusals: true,
    epoch:
      'RabbitMQ counts deliveries (x-delivery-count on a quorum queue) but an ack carries no number: a holder is fenced by its ' +
      'channel, not by an epoch the broker checks',
    holder: true,
    digest: true,
    // A dead-lettered message stays in the dead-letter queue until a person moves it.
    review: true,
    'retry-policy': 'RabbitMQ has no retry delay: a message nacked with requeue is delivered again at once',
    renewals: "RabbitMQ keeps no lease to renew: a delivery is its consumer's until that consumer's channel or connection closes",
  },
  // The holder's channel: when RabbitMQ gives a message to another consumer, the first one's channel (or connection) is gone.
  fencing: true,
  dedupe: 'RabbitMQ dedupes nothing on publish: every publish of a key is another message (publisher confirms say only that it was stored)',
  leaseExpiry:
    "RabbitMQ takes a message back only when its holder's channel or connection closes (a dead process, a connection silent past " +
    'its heartbeat), or after consumer_timeout (30 min by default): never from a live holder by a lease that ran out',
  sagaStore: 'beside-the-run',
  takeover: 'queue',
  compensation: 'RabbitMQ has no compensating state: a message that failed for good is dead-lettered, with nothing to hand it to a compensator',
  clock: 'server',
};
