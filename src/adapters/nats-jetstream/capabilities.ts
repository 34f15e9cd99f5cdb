import type { Capabilities } from '../../port/adapter.js';

/**
 * What a drill can show of NATS JetStream. JetStream keeps no job table and
 * no per-message history, so the history is the drill's record of what its
 * processes saw JetStream do (src/adapters/broker-record/observed-record.ts):
 * each publish and its PubAck, each delivery with the delivery count JetStream
 * stamped on it, each ack, nak and term with JetStream's answer. Read from
 * nats-server 2.9 and @nats-io/jetstream 3.4 (test/probes/nats-jetstream.probe.test.ts).
 */
export const NATS_JETSTREAM_CAPABILITIES: Capabilities = {
  evidence: {
    // Written by the drill's processes as JetStream answered them, never from a worker's own claim about its work.
    history: true,
    refusals:
      'JetStream refuses no acknowledgement: it answers every ack, nak, term and in-progress ack of a delivery, and applies a stale ' +
      "holder's (one whose message was already redelivered to another) as if it were the current holder's, so there is no refusal to record",
    // The delivery count JetStream stamps on each delivery (its ack subject), plus the attempts before a person's requeue.
    epoch: true,
    holder: true,
    digest: true,
    // A terminated message leaves the stream; an exhausted one stays, never delivered again: only a person's requeue runs the job again.
    review: true,
    // The delay is the one the worker asked JetStream for in its nak, recorded with the retry.
    'retry-policy': true,
    // The worker sends each in-progress ack itself, on its own timer, and tells the harness the end it set.
    renewals: true,
  },
  fencing:
    "JetStream does not fence acknowledgements: a stale holder's ack is accepted after its message was redelivered (the message is removed " +
    "while the new holder still works on it), its nak takes the message from the new holder, and its in-progress ack extends the new holder's ack wait",
  sagaStore: 'beside-the-run',
  takeover: 'queue',
  compensation: 'JetStream has no compensating state: a message is acked, redelivered or terminated, with nothing to hand it to a compensator',
  // Nats-Msg-Id within the stream's duplicate window: a key published again after the window makes a second message (the fit says how long).
  dedupe: true,
  // ack_wait runs on the server: a holder that stops acking loses its message at ack_wait, however long it lives on.
  leaseExpiry: true,
  clock: 'server',
};
