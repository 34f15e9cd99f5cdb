import { utc } from '../../kernel/clock.js';
import type { ManualOps } from '../../port/adapter.js';
import type { Claim, WriteResult } from '../../port/delivery.js';
import { acknowledge } from './acks.js';
import type { NatsContext } from './context.js';
import { deliveryOfToken } from './message.js';
import { ackWaitOf } from './options.js';
import { pullOne } from './pull.js';
import { settleDelivery } from './settle.js';
import { takeDelivery } from './take.js';

/** How long a manual claim's pull waits at the server for a message before it answers none. */
export const CLAIM_WAIT_MS = 50;

function nothingWritten(): WriteResult {
  return { ok: false, refused: 'nothing written' };
}

/**
 * Claim and settle by hand: a pull that waits only a moment at the server
 * (CLAIM_WAIT_MS: the next deliverable message, or none), recorded as
 * the work loop records a delivery, and the same acknowledgements. The
 * claim's token is the delivery's ack subject, so each later write goes to
 * that delivery. A delivery past its job's budget is terminated and the next
 * one pulled. Before its first pull the connection sets the drill's ack wait
 * on the consumer, as a worker does.
 */
export function manualOps(ctx: NatsContext): ManualOps {
  return {
    async claim(workerId) {
      await ctx.consumer.ensure();
      for (;;) {
        const requestedAt = ctx.now();
        const msg = await pullOne(ctx.nc, ctx.stream, CLAIM_WAIT_MS);
        if (!msg) return null;
        const outcome = await takeDelivery(ctx, msg, workerId, requestedAt);
        if (outcome.kind === 'taken') return outcome.taken.claim;
      }
    },
    async heartbeat(claim: Claim) {
      const delivery = deliveryOfToken(claim.token, claim.epoch);
      if (!delivery) return { ok: false, refused: `no JetStream delivery under token ${String(claim.token)}` };
      const sentAt = ctx.now();
      const unanswered = await acknowledge(ctx.nc, delivery.ackSubject, { kind: 'in-progress' });
      if (unanswered !== null) return { ok: false, refused: `JetStream did not answer the in-progress ack (${unanswered})` };
      // JetStream answered (and applies it whoever holds the message now); the lease moves only if the record has it as this holder's.
      const job = ctx.record.job(claim.jobId);
      if (job?.status === 'running' && job.epoch === claim.epoch) {
        const settings = await ctx.consumer.read();
        ctx.index.renewed(claim.jobId, claim.epoch, utc(sentAt + ackWaitOf(delivery.ack.deliveryCount, settings.ackWaitMs, settings.backoff)));
      }
      return { ok: true, status: job?.status ?? 'running' };
    },
    complete: async (claim, digest) => (await settleDelivery(ctx, claim, { kind: 'done', digest })) ?? nothingWritten(),
    retry: async (claim, error) => (await settleDelivery(ctx, claim, { kind: 'retry', error })) ?? nothingWritten(),
    review: async (claim, reason, error) =>
      (await settleDelivery(ctx, claim, { kind: 'review', reason, ...(error === undefined ? {} : { error }) })) ?? nothingWritten(),
  };
}
