import { type ContractCheck, expectThat } from '../check.js';

const JOBS = 12;

/** Two workers never hold one job: workers racing to claim, from one instant, until nothing is left. */
export const singleClaimCheck: ContractCheck = {
  id: 'single-claim',
  statement: 'two workers never hold one job: every job is claimed once, by one worker, however many race',
  needs: ['manual'],
  async run(ctx) {
    for (let n = 1; n <= JOBS; n++) await ctx.queue.enqueue({ key: `contract-claim-${n}`, action: 'sleep', payload: '{}', maxAttempts: 3 });
    // A lease that cannot run out during the race, however slow the machine: a second claim of a job is then a
    // second holder at once, never a lawful takeover of an expired lease (300 ms on a server's clock).
    const results = await ctx.race(4, { kind: 'claim-all', prefix: 'racer-' }, { leaseMs: 60_000 });
    const holders = new Map<string, string[]>();
    for (const r of results) for (const claim of r.claimed) holders.set(claim.jobId, [...(holders.get(claim.jobId) ?? []), claim.holder]);
    for (const [jobId, who] of holders)
      expectThat(who.length === 1, () => `job ${jobId} was claimed by ${who.length} workers at once: ${who.join(', ')}`);
    expectThat(holders.size === JOBS, () => `${holders.size} of ${JOBS} jobs were claimed; the rest were never handed out`);
    const { jobs } = await ctx.queue.snapshot();
    for (const job of jobs) {
      const claimedBy = holders.get(job.id)?.[0];
      expectThat(
        job.status === 'running' && (ctx.impl.capabilities.evidence.holder !== true || job.holder === claimedBy),
        () => `job ${job.id} was claimed by ${claimedBy}, but the queue says ${job.status}, held by ${job.holder}`,
      );
    }
  },
};
