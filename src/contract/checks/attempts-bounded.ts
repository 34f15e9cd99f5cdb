import { expectThat, manualOf, type ContractCheck } from '../check.js';

/** Attempts are counted at claim and bounded by max attempts: a job whose holders keep dying stops being handed out. */
export const attemptsBounded: ContractCheck = {
  id: 'attempts-bounded',
  statement: 'attempts are counted at each claim and never exceed max attempts, however often holders die',
  needs: ['manual'],
  async run(ctx) {
    const manual = manualOf(ctx);
    await ctx.queue.enqueue({ key: 'contract-attempts', action: 'sleep', payload: '{}', maxAttempts: 2 });
    const expire = async (jobId: string) => {
      if (ctx.queue.takeover) await ctx.queue.takeover.expireLease(jobId);
      else await ctx.passTime(ctx.leaseMs + ctx.skewMarginMs + 50);
    };
    const first = await manual.claim('w1');
    expectThat(first !== null, () => 'nothing to claim after an enqueue');
    expectThat(first.attempt === 1, () => `the first claim is attempt ${first.attempt}, not 1`);
    await expire(first.jobId);
    const second = await manual.claim('w2');
    expectThat(second !== null && second.jobId === first.jobId, () => 'the job whose holder died was not claimed again');
    expectThat(second.attempt === 2, () => `the second claim is attempt ${second.attempt}, not 2`);
    await expire(second.jobId);
    const third = await manual.claim('w3');
    expectThat(third === null, () => `a third claim (attempt ${third?.attempt}) was handed out with max attempts 2`);
    const job = (await ctx.queue.snapshot()).jobs.find((j) => j.id === first.jobId);
    expectThat(job !== undefined && job.attempts <= 2, () => `the job counts ${job?.attempts} attempts with max attempts 2`);
  },
};
