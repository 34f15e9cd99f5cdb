import type { EnqueueRequest, EnqueueResult } from '../../port/adapter.js';
import { EnqueueError } from '../../port/adapter.js';
import type { NatsContext } from './context.js';
import { encodeBody, jobHeaders } from './message.js';

/** How long a producer waits for JetStream's PubAck. */
export const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * Publishes the job with its idempotency key as Nats-Msg-Id: within the
 * stream's duplicate window JetStream stores one message per id and answers
 * a repeat with the first one's sequence (PubAck duplicate: true), which is
 * the job id; after the window the same key makes a new message, so a new
 * job (probe N2). The job is recorded once JetStream answered. No answer (a
 * timeout, a lost connection) leaves it unknown whether JetStream stored it:
 * indefinite.
 */
export async function enqueueJetStream(ctx: NatsContext, request: EnqueueRequest): Promise<EnqueueResult> {
  const body = { key: request.key, action: request.action, payload: request.payload, maxAttempts: request.maxAttempts };
  let ack: { seq: number; duplicate: boolean };
  try {
    ack = await ctx.js.publish(ctx.subject, encodeBody(body), { msgID: request.key, headers: jobHeaders(body), timeout: PUBLISH_TIMEOUT_MS });
  } catch (error) {
    throw new EnqueueError(false, `JetStream publish failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const jobId = String(ack.seq);
  ctx.index.note(ack.seq, jobId, 0);
  ctx.record.addJob({ id: jobId, ...body }, 'producer');
  return { outcome: ack.duplicate ? 'deduplicated' : 'created', jobId };
}
