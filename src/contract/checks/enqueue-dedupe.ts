import { type ContractCheck, expectThat } from '../check.js';

const KEYS = Array.from({ length: 8 }, (_, i) => `contract-dedupe-${i + 1}`);

/** Concurrent enqueue of one key makes one job: producers racing on the same keys, from one instant. */
export const enqueueDedupeCheck: ContractCheck = {
  id: 'enqueue-dedupe',
  statement: 'concurrent enqueue of one key makes one job, and exactly one producer is told it created it',
  needs: ['dedupe'],
  async run(ctx) {
    const results = await ctx.race(4, { kind: 'enqueue', keys: KEYS });
    const { jobs } = await ctx.queue.snapshot();
    for (const key of KEYS) {
      const answers = results.flatMap((r) => r.enqueued.filter((e) => e.key === key).map((e) => ({ ...e, thread: r.thread })));
      const created = answers.filter((a) => a.outcome === 'created');
      expectThat(
        created.length === 1,
        () =>
          `key ${key}: ${created.length} of ${answers.length} racing producers were told ` +
          `they created it (threads ${created.map((c) => c.thread).join(', ') || 'none'})`,
      );
      const stored = jobs.filter((job) => job.key === key);
      expectThat(stored.length === 1, () => `key ${key}: the queue holds ${stored.length} jobs (${stored.map((j) => j.id).join(', ')})`);
      const ids = new Set(answers.map((a) => a.jobId));
      expectThat(ids.size === 1, () => `key ${key}: producers were told different job ids (${[...ids].join(', ')})`);
    }
  },
};
