import { type NatsConnection, nanos } from '@nats-io/transport-node';

/*
 * The acknowledgements a holder sends JetStream for a delivery, each as a
 * request to the delivery's ack subject: the server answers once it has
 * processed it (the client's ackAck does this for +ACK; nats-server answers
 * every kind the same way). The answer says JetStream took the write, never
 * that it applied it to this holder's delivery: it answers a stale holder's
 * ack too, and applies it (probe N1).
 */

/** How long a holder waits for JetStream's answer to an acknowledgement. */
export const ACK_ANSWER_MS = 5_000;

/** One acknowledgement, in JetStream's words. */
export type Acknowledgement = { kind: 'ack' } | { kind: 'nak'; delayMs: number } | { kind: 'term' } | { kind: 'in-progress' };

/** What JetStream's protocol sends for each (nats-server's AckAck, AckNak, AckTerm, AckProgress). */
export function ackPayload(ack: Acknowledgement): string {
  switch (ack.kind) {
    case 'ack':
      return '+ACK';
    case 'nak':
      return ack.delayMs > 0 ? `-NAK ${JSON.stringify({ delay: nanos(ack.delayMs) })}` : '-NAK';
    case 'term':
      return '+TERM';
    case 'in-progress':
      return '+WPI';
    default: {
      const unreachable: never = ack;
      throw new Error(`unknown acknowledgement ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Sends `ack` for the delivery at `ackSubject`; null once JetStream answered, else why it did not (it may still apply it). */
export async function acknowledge(nc: NatsConnection, ackSubject: string, ack: Acknowledgement): Promise<string | null> {
  try {
    await nc.request(ackSubject, ackPayload(ack), { timeout: ACK_ANSWER_MS });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  }
}
