import { type ContractCheck, claimTakenBack, expectThat, oneClaimedJob } from '../check.js';

/** An expired lease is taken back: the holder stopped renewing, its lease ran out, another worker gets the job under a later epoch. */
export const expiredLeaseTakenBackCheck: ContractCheck = {
  id: 'expired-lease-taken-back',
  statement: "an expired lease is taken back: once a holder's lease has run out, another worker gets the job under a later epoch",
  needs: ['manual', 'lease-expiry'],
  async run(ctx) {
    const { manual, claim: dead } = await oneClaimedJob(ctx, 'contract-expiry');
    expectThat((await manual.claim('w2')) === null, () => 'a second worker got a job while the only one was held under a live lease');
    // By time, as a crashed worker's lease runs out: a queue whose leases never expire fails here.
    const waited = ctx.leaseMs + ctx.skewMarginMs + 50;
    await ctx.passTime(waited);
    const next = await claimTakenBack(ctx, 'w2');
    expectThat(
      next !== null,
      () =>
        `w1's lease ran out ${waited} ms after the claim${ctx.retryDelayMs > 0 ? ` (and the queue's retry delay of ${ctx.retryDelayMs} ms passed)` : ''}, ` +
        'but no other worker could take the job back',
    );
    expectThat(next.jobId === dead.jobId, () => `w2 got job ${next.jobId}, not the one w1 left`);
    expectThat(next.epoch > dead.epoch, () => `w2 took the job under epoch ${next.epoch}, not later than w1's ${dead.epoch}`);
  },
};
