import { type Msg, type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';

/*
 * A job as a JetStream message: its body is the job (key, action, payload,
 * budget) as JSON; its headers say which job it belongs to where that is not
 * its own stream sequence (a person's requeue publishes a new message for the
 * same job) and how many attempts the job had before it. A delivery's facts
 * come from its ack subject, which JetStream stamps on every delivery:
 * `$JS.ACK.<stream>.<consumer>.<delivery count>.<stream seq>.<consumer seq>.<time>.<pending>`
 * (nats-server's ackReplyT; a newer server may put a domain and an account
 * hash before the stream, and a random token after).
 */

/** The job a message carries. */
export interface JobBody {
  key: string;
  action: string;
  /** JSON text. */
  payload: string;
  maxAttempts: number;
}

/** The job a requeued message belongs to (its first message's stream sequence). */
export const JOB_ID_HEADER = 'Qd-Job-Id';
/** The attempts the job had before this message: its deliveries count on from there. */
export const ATTEMPTS_BEFORE_HEADER = 'Qd-Attempts-Before';
/** The job's attempt budget, for a person reading the stream. */
export const MAX_ATTEMPTS_HEADER = 'Qd-Max-Attempts';

export function encodeBody(body: JobBody): string {
  return JSON.stringify({ key: body.key, action: body.action, payload: body.payload, maxAttempts: body.maxAttempts });
}

/** The job a message body carries; throws on a message that is not one of the drill's. */
export function decodeBody(text: string): JobBody {
  const value = JSON.parse(text) as Partial<JobBody>;
  if (typeof value.key !== 'string' || typeof value.action !== 'string' || typeof value.payload !== 'string' || typeof value.maxAttempts !== 'number')
    throw new Error('not a queue-drill job message');
  return { key: value.key, action: value.action, payload: value.payload, maxAttempts: value.maxAttempts };
}

/** The headers of a job's message: the budget always; the job and the attempts before it for a requeue. */
export function jobHeaders(body: JobBody, requeue?: { jobId: string; attemptsBefore: number }): MsgHdrs {
  const h = natsHeaders();
  h.set(MAX_ATTEMPTS_HEADER, String(body.maxAttempts));
  if (requeue) {
    h.set(JOB_ID_HEADER, requeue.jobId);
    h.set(ATTEMPTS_BEFORE_HEADER, String(requeue.attemptsBefore));
  }
  return h;
}

/** What an ack subject says of its delivery. */
export interface AckSubject {
  stream: string;
  deliveryCount: number;
  streamSeq: number;
}

/** The facts of a delivery in its ack subject, or null for a subject that is not one. */
export function parseAckSubject(subject: string): AckSubject | null {
  const tokens = subject.split('.');
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK' || (tokens.length !== 9 && tokens.length < 11)) return null;
  // As the client's own parseInfo: 9 tokens, or 11 and more with a domain and an account hash before the stream.
  const base = tokens.length === 9 ? 2 : 4;
  const deliveryCount = Number(tokens[base + 2]);
  const streamSeq = Number(tokens[base + 3]);
  if (!Number.isInteger(deliveryCount) || !Number.isInteger(streamSeq)) return null;
  return { stream: tokens[base] ?? '', deliveryCount, streamSeq };
}

/** One delivery of a job's message, as a worker got it. */
export interface Delivered {
  jobId: string;
  body: JobBody;
  streamSeq: number;
  deliveryCount: number;
  attemptsBefore: number;
  /** Where an ack of this delivery goes. */
  ackSubject: string;
}

/** A pulled message as a delivery; null for JetStream's status answers (no message, request expired). */
export function deliveredOf(msg: Msg): Delivered | null {
  const ack = msg.reply ? parseAckSubject(msg.reply) : null;
  if (!ack || !msg.reply) return null;
  const jobId = msg.headers?.get(JOB_ID_HEADER) || String(ack.streamSeq);
  const before = Number(msg.headers?.get(ATTEMPTS_BEFORE_HEADER) || '0');
  return {
    jobId,
    body: decodeBody(msg.string()),
    streamSeq: ack.streamSeq,
    deliveryCount: ack.deliveryCount,
    attemptsBefore: Number.isInteger(before) && before > 0 ? before : 0,
    ackSubject: msg.reply,
  };
}

/** The delivery a claim's token (its ack subject) names, with the attempts before it. */
export function deliveryOfToken(token: string | null, epoch: number): { ackSubject: string; ack: AckSubject; attemptsBefore: number } | null {
  const ack = token ? parseAckSubject(token) : null;
  if (!ack || !token) return null;
  return { ackSubject: token, ack, attemptsBefore: Math.max(0, epoch - ack.deliveryCount) };
}
