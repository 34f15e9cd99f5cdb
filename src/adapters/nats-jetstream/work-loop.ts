import { setTimeout as sleep } from 'node:timers/promises';
import { secretsInPayload, storableError } from '../../kernel/redact.js';
import type { DeliveryHandler, WorkOptions } from '../../port/delivery.js';
import type { NatsContext } from './context.js';
import { PULL_EXPIRES_MS } from './fit.js';
import { pullOne } from './pull.js';
import { type HeldDelivery, startRenewals } from './renewal.js';
import { settleDelivery } from './settle.js';
import { takeDelivery } from './take.js';

/** How long a worker waits before pulling again after JetStream did not answer (a restarting server). */
const AFTER_ERROR_MS = 250;

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/**
 * Hosts a worker, as a JetStream consumer's worker runs: pull one message
 * (waiting at the server until one is ready), run the handler while renewing
 * with in-progress acks, then ack, nak or terminate it. Stops when told to
 * (after the message in hand), after maxJobs, or once the record has nothing
 * pending, retrying or running (exitWhenDrained). Before its first pull it
 * sets the drill's ack wait on the consumer. `idle` runs after a pull that
 * found nothing (the connection's sweep of exhausted messages).
 */
export async function runWorker(
  ctx: NatsContext,
  handler: DeliveryHandler,
  options: WorkOptions,
  idle: () => void = () => {},
): Promise<{ processed: number }> {
  await ctx.consumer.ensure();
  let processed = 0;
  while (!options.stop.aborted) {
    if (options.maxJobs > 0 && processed >= options.maxJobs) break;
    if (options.exitWhenDrained && !ctx.record.active()) break;
    const requestedAt = ctx.now();
    let outcome: Awaited<ReturnType<typeof takeDelivery>>;
    try {
      const msg = await pullOne(ctx.nc, ctx.stream, PULL_EXPIRES_MS);
      if (!msg) {
        idle();
        continue;
      }
      outcome = await takeDelivery(ctx, msg, options.workerId, requestedAt);
    } catch (error) {
      options.log({ event: 'pull-failed', error: storableError(error) });
      await sleep(AFTER_ERROR_MS);
      continue;
    }
    if (outcome.kind === 'over-budget') {
      options.log({ event: 'terminated-over-budget', jobId: outcome.jobId, answered: outcome.terminated });
      continue;
    }
    if (outcome.kind !== 'taken') continue;
    await runDelivery(ctx, outcome.taken, handler, options);
    processed++;
  }
  return { processed };
}

/** Runs one delivery's handler under renewals and settles it; a handler that throws leaves the message to its ack wait. */
async function runDelivery(
  ctx: NatsContext,
  taken: { claim: HeldDelivery['claim']; ackWaitMs: number },
  handler: DeliveryHandler,
  options: WorkOptions,
) {
  const { claim } = taken;
  options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
  if (claim.leaseUntil) options.onLease?.(claim, claim.leaseUntil, 'claim');
  const held: HeldDelivery = { claim, ackWaitMs: taken.ackWaitMs, startedAt: ctx.now(), lost: new AbortController() };
  const renewals = startRenewals(ctx, held, options);
  try {
    const saga = await ctx.saga.logFor(claim);
    const settlement = await handler({ ...claim, signal: held.lost.signal, saga });
    renewals.stop();
    const write = await settleDelivery(ctx, claim, settlement);
    if (write && !write.ok) options.log({ event: 'settle-unanswered', jobId: claim.jobId, epoch: claim.epoch, refused: write.refused });
    options.onSettled?.(claim, settlement, write);
  } catch (error) {
    // A bug in the drill, not a job failure: the message is left; its ack wait runs out and JetStream redelivers it.
    options.log({ event: 'job-crashed', jobId: claim.jobId, error: storableError(error, secretsInPayload(parsedOrNull(claim.payload))) });
  } finally {
    renewals.stop();
  }
}
