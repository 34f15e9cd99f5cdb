import { setTimeout as sleep } from 'node:timers/promises';
import type { TakeoverOps } from '../../port/adapter.js';
import type { NatsContext } from './context.js';
import type { ExhaustedSweeper } from './exhausted.js';

/** After a lease's recorded end, before JetStream's own timer has surely fired. */
const PAST_THE_END_MS = 50;

/**
 * JetStream takes a message back itself (at its ack wait), so a coordinator
 * has nothing to release: `expiredLeases` is empty and `releaseExpired`
 * never takes one. `maintain` is the sweep of messages JetStream gave up on
 * (exhausted.ts). `expireLease` cannot make JetStream forget an ack wait
 * early (there is no API for it), so it waits the held lease out, as a dead
 * holder's job waits: until the lease's end (its renewals included), and a moment.
 */
export function takeoverOps(ctx: NatsContext, sweeper: ExhaustedSweeper): TakeoverOps {
  return {
    async expireLease(jobId) {
      const job = ctx.record.job(jobId);
      if (job?.status !== 'running') return;
      const renewed = ctx.index.renewals().get(jobId);
      const ends = [job.leaseUntil, renewed && renewed.epoch === job.epoch ? renewed.leaseUntil : null].filter((at): at is string => at !== null);
      const end = Math.max(0, ...ends.map((at) => Date.parse(at)));
      const wait = end + PAST_THE_END_MS - ctx.now();
      if (wait > 0) await sleep(wait);
    },
    expiredLeases: async () => [],
    releaseExpired: async () => false,
    maintain: () => sweeper.now(),
  };
}
