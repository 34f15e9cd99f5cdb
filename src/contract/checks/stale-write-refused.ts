import { CONTRACT_DIGEST, type ContractCheck, claimTakenBack, expectThat, expireLease, oneClaimedJob } from '../check.js';

/** A stale holder's write is refused (and recorded, where the queue keeps refusals): its lease expired and the job was claimed again. */
export const staleWriteRefusedCheck: ContractCheck = {
  id: 'stale-write-refused',
  statement: "a stale holder's write is refused, changes nothing, and is recorded where the queue keeps refusals",
  needs: ['manual', 'fencing'],
  async run(ctx) {
    const { manual, claim: stale } = await oneClaimedJob(ctx, 'contract-stale');
    await expireLease(ctx, stale.jobId);
    const current = await claimTakenBack(ctx, 'w2');
    expectThat(
      current !== null && current.jobId === stale.jobId,
      () => `the expired job was not claimed again (got ${current ? `job ${current.jobId}` : 'nothing'})`,
    );
    const heartbeat = await manual.heartbeat(stale);
    expectThat(!heartbeat.ok, () => `w1's renewal under epoch ${stale.epoch} was applied after w2 claimed the job under epoch ${current.epoch}`);
    const complete = await manual.complete(stale, CONTRACT_DIGEST);
    expectThat(!complete.ok, () => `w1's complete under epoch ${stale.epoch} was applied after w2 claimed the job under epoch ${current.epoch}`);
    const { jobs, history } = await ctx.queue.snapshot();
    const job = jobs.find((j) => j.id === current.jobId);
    expectThat(job?.status === 'running', () => `after the refused write the job is ${job?.status ?? 'gone'}, not running under w2`);
    if (ctx.impl.capabilities.evidence.holder === true)
      expectThat(job.holder === 'w2', () => `after the refused write the job is held by ${job.holder}, not w2`);
    if (ctx.impl.capabilities.evidence.refusals === true) {
      const refused = history.filter((e) => e.jobId === job.id && e.kind === 'refused' && e.worker === 'w1');
      expectThat(refused.length >= 2, () => `the queue keeps refusals, but its history records ${refused.length} of w1's two refused writes`);
    }
  },
};
