import { type ContractCheck, claimTakenBack, expectThat, expireLease, oneClaimedJob } from '../check.js';

/** Attempts are counted at claim and bounded by max attempts: a job whose holders keep dying stops being handed out. */
export const attemptsBoundedCheck: ContractCheck = {
  id: 'attempts-bounded',
  statement: 'attempts are counted at each claim and never exceed max attempts, however often holders die',
  needs: ['manual'],
  async run(ctx) {
    const { claim: first } = await oneClaimedJob(ctx, 'contract-attempts', 2);
    expectThat(first.attempt === 1, () => `the first claim is attempt ${first.attempt}, not 1`);
    await expireLease(ctx, first.jobId);
    const second = await claimTakenBack(ctx, 'w2');
    expectThat(second !== null && second.jobId === first.jobId, () => 'the job whose holder died was not claimed again');
    expectThat(second.attempt === 2, () => `the second claim is attempt ${second.attempt}, not 2`);
    await expireLease(ctx, second.jobId);
    const third = await claimTakenBack(ctx, 'w3');
    expectThat(third === null, () => `a third claim (attempt ${third?.attempt}) was handed out with max attempts 2`);
    const job = (await ctx.queue.snapshot()).jobs.find((j) => j.id === first.jobId);
    expectThat(job !== undefined && job.attempts <= 2, () => `the job counts ${job?.attempts} attempts with max attempts 2`);
  },
};
