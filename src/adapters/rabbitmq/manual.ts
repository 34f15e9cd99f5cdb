import { randomUUID } from 'node:crypto';
import type { ChannelModel } from 'amqplib';
import type { ManualOps, TakeoverOps } from '../../port/adapter.js';
import type { Claim, Settlement, WriteResult } from '../../port/delivery.js';
import { noteDeadLetters } from './dead-letters.js';
import { jobOfMessage } from './message.js';
import { claimOf, recordDelivery, recordPastBudget } from './record-delivery.js';
import { type HeldMessage, rejectHeld, settleHeld } from './settle.js';
import type { WorkContext } from './work-loop.js';

/** How many messages past their budget one claim rejects before it answers that nothing is ready. */
const MAX_REJECTED_PER_CLAIM = 100;

/** Takes the next message under a channel of its own; one past its job's budget is rejected, and the next one taken. */
async function claimOne(context: WorkContext, workerId: string, connected: () => Promise<ChannelModel>, held: Map<string, HeldMessage>) {
  for (let rejected = 0; rejected <= MAX_REJECTED_PER_CLAIM; rejected++) {
    const channel = await (await connected()).createChannel();
    channel.on('error', () => {});
    const message = await channel.get(context.queues.work, { noAck: false });
    if (message === false) {
      await channel.close().catch(() => {});
      return null;
    }
    const delivered = jobOfMessage(message);
    const recorded = recordDelivery(context.record, delivered, workerId);
    const claim = claimOf(delivered, recorded, workerId, randomUUID());
    const hold: HeldMessage = { channel, message, claim, queue: context.queues.work, queueType: context.queueType };
    if (recorded.kind === 'attempt') {
      held.set(claim.token!, hold);
      return claim;
    }
    if (await rejectHeld(hold)) recordPastBudget(context.record, claim.jobId, workerId);
    await channel.close().catch(() => {});
  }
  return null;
}

/**
 * Claim and settle by hand: basic.get with manual ack, each claim on a
 * channel of its own (its hold on the message, as a consumer's channel is),
 * all on one connection of this process. Expiring a lease is its holder
 * dying: its channel closed, so RabbitMQ gives the message back at once, and
 * the holder's later writes meet a closed channel. RabbitMQ keeps no lease
 * ends, so there is never an expired lease to list or release: it takes
 * messages back itself.
 */
export function manualOps(context: WorkContext): ManualOps & TakeoverOps & { close(): Promise<void> } {
  const held = new Map<string, HeldMessage>();
  let connection: Promise<ChannelModel> | undefined;
  const connected = () => {
    connection ??= context.link.dedicated();
    return connection;
  };
  const heldBy = (claim: Claim) => held.get(claim.token ?? '');
  const write = async (claim: Claim, settlement: Settlement): Promise<WriteResult> => {
    const hold = heldBy(claim);
    if (!hold) return { ok: false, refused: `no delivery of job ${claim.jobId} under this token in this process` };
    const result = (await settleHeld(context.record, hold, settlement)) ?? { ok: false, refused: 'nothing written' };
    if (result.ok) {
      held.delete(claim.token ?? '');
      await hold.channel.close().catch(() => {});
    }
    return result;
  };
  return {
    claim: (workerId) => claimOne(context, workerId, connected, held),
    async heartbeat(claim) {
      // Nothing to renew: the holder holds the message as long as its channel is open, which a round trip shows.
      const hold = heldBy(claim);
      if (!hold) return { ok: false, refused: `no delivery of job ${claim.jobId} under this token in this process` };
      try {
        await hold.channel.checkQueue(context.queues.work);
        return { ok: true, status: 'running' };
      } catch (error) {
        const reason = `RabbitMQ did not take it: its channel is closed (${error instanceof Error ? error.message : String(error)})`;
        context.record.refused(claim.jobId, { to: 'running', epoch: claim.epoch, worker: claim.holder, reason });
        return { ok: false, refused: reason };
      }
    },
    complete: (claim, digest) => write(claim, { kind: 'done', digest }),
    retry: (claim, error) => write(claim, { kind: 'retry', error }),
    review: (claim, reason, error) => write(claim, { kind: 'review', reason, ...(error === undefined ? {} : { error }) }),
    async expireLease(jobId) {
      const holds = [...held.values()].filter((hold) => hold.claim.jobId === jobId);
      if (holds.length === 0) throw new Error(`job ${jobId} is not held by a manual claim of this process: only its holder's channel can let it go`);
      // Closed, not settled: the hold stays in the map, so the stale holder's later writes meet the closed channel.
      for (const hold of holds) await hold.channel.close().catch(() => {});
    },
    expiredLeases: async () => [],
    releaseExpired: async () => false,
    maintain: () => noteDeadLetters(context.link, context.queues, context.record),
    async close() {
      held.clear();
      const open = connection;
      connection = undefined;
      if (open) await (await open).close().catch(() => {});
    },
  };
}
