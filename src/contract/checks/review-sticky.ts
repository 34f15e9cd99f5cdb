import { type ContractCheck, expectThat, oneClaimedJob } from '../check.js';

/** Review is sticky: a job sent to review is never handed out again, however long it waits, until a person acts. */
export const reviewStickyCheck: ContractCheck = {
  id: 'review-sticky',
  statement: 'review is sticky: a job in review is never claimed again without a person, however long it waits',
  needs: ['manual'],
  async run(ctx) {
    const { manual, claim: held } = await oneClaimedJob(ctx, 'contract-review');
    const review = await manual.review(held, 'a person must look at this');
    expectThat(review.ok, () => `the holder's review was refused: ${review.ok ? '' : review.refused}`);
    // Longer than any lease or retry delay of the check: a queue that empties review on a timer shows it here.
    await ctx.passTime(3 * (ctx.leaseMs + ctx.skewMarginMs) + ctx.retryDelayMs);
    const again = await manual.claim('w2');
    expectThat(again === null, () => `job ${again?.jobId} left review without a person: claimed again by w2 (attempt ${again?.attempt})`);
    const job = (await ctx.queue.snapshot()).jobs.find((j) => j.id === held.jobId);
    expectThat(job?.status === 'review', () => `the job is ${job?.status}, not in review`);
  },
};
