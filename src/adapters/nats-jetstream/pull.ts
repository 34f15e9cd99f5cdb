import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { nanos } from '@nats-io/transport-node';
import { pullSubjectFor } from './names.js';

/** How much longer than the pull's own wait the client waits for the server's answer (a message, or a status). */
const ANSWER_SLACK_MS = 5_000;

/**
 * One pull request for one message from the drill's consumer, as the client's
 * fetch makes it ($JS.API.CONSUMER.MSG.NEXT, batch 1, expires), on an inbox
 * of its own (a mux inbox cannot route a delivery: it arrives on the
 * message's own subject). The request waits at the server for up to `waitMs`
 * and is answered as soon as a message is ready, else with a 408 at its
 * expiry: the server always ends it, and the client waits for that end (a
 * request given up early could still be sent a message nobody would see).
 * Never `no_wait` alone: nats-server 2.9 leaves such a request unanswered
 * when the only message it finds is one it has just given up on (max_deliver
 * reached). Returns the message, or null when JetStream had none.
 */
export async function pullOne(nc: NatsConnection, stream: string, waitMs: number): Promise<Msg | null> {
  const request = { batch: 1, expires: nanos(waitMs) };
  const msg = await nc.request(pullSubjectFor(stream), JSON.stringify(request), { timeout: waitMs + ANSWER_SLACK_MS, noMux: true });
  // A status (404 no messages, 408 request expired, 409 ...) carries a code and no ack subject.
  if (msg.headers?.hasError || (msg.headers?.code ?? 0) >= 400 || !msg.reply) return null;
  return msg;
}
