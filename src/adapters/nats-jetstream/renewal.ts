import { utc } from '../../kernel/clock.js';
import type { Claim, WorkOptions } from '../../port/delivery.js';
import { acknowledge } from './acks.js';
import type { NatsContext } from './context.js';

/** A delivery a worker holds now: its claim, when it began, and the signal the handler watches. */
export interface HeldDelivery {
  claim: Claim;
  ackWaitMs: number;
  startedAt: number;
  lost: AbortController;
}

/** Renewal never runs more often than this, whatever the ack wait. */
const MIN_PERIOD_MS = 20;

/**
 * The heartbeat of a held delivery: an in-progress ack (+WPI) every third of
 * its ack wait, which JetStream answers by starting the ack wait again
 * (probe N0b). Before each, the harness's heartbeat failpoint
 * (`beforeRenewal`), so a fault there delays or stops the real renewal. Each
 * answered renewal moves the lease's end to when it was sent plus the ack
 * wait (JetStream restarts the wait no earlier) and is told to the harness;
 * one whose job JetStream had already redelivered is not the holder's lease
 * any more (JetStream applies it to the new holder's delivery) and is only
 * logged. An attempt past its deadline is renewed no more: its ack wait runs
 * out and JetStream redelivers. One timer at a time, cleared by stop().
 */
export function startRenewals(ctx: NatsContext, held: HeldDelivery, options: WorkOptions): { stop(): void } {
  const period = Math.max(MIN_PERIOD_MS, Math.floor(held.ackWaitMs / 3));
  const { claim } = held;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    if (stopped) return;
    if (ctx.now() - held.startedAt > options.maxAttemptMs) {
      options.log({ event: 'attempt-deadline', jobId: claim.jobId, attempt: claim.attempt, maxAttemptMs: options.maxAttemptMs });
      held.lost.abort();
      return;
    }
    await options.beforeRenewal?.(claim);
    if (stopped) return;
    const sentAt = ctx.now();
    const unanswered = await acknowledge(ctx.nc, claim.token ?? '', { kind: 'in-progress' });
    if (stopped) return;
    if (unanswered !== null) {
      options.log({ event: 'renewal-unanswered', jobId: claim.jobId, epoch: claim.epoch, error: unanswered });
    } else {
      const job = ctx.record.job(claim.jobId);
      if (job?.status === 'running' && job.epoch === claim.epoch) {
        const leaseUntil = utc(sentAt + held.ackWaitMs);
        ctx.index.renewed(claim.jobId, claim.epoch, leaseUntil);
        options.onLease?.(claim, leaseUntil, 'renewal');
      } else {
        options.log({ event: 'renewal-after-redelivery', jobId: claim.jobId, epoch: claim.epoch, now: job ? `${job.status}@${job.epoch}` : 'gone' });
      }
    }
    timer = setTimeout(() => void tick(), period);
  };
  timer = setTimeout(() => void tick(), period);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
