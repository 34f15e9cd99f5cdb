import { enqueued, expectThat, snapshotOf } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';

/** One key, one job: a second enqueue (from the same child, another, or racing) is "deduplicated" with the first's id. */
export const enqueueDedupeStep: ProtocolStep = {
  name: 'enqueue-dedupe',
  describe: 'enqueue creates a job once per key; again, from another child, or racing, it is deduplicated with the same id',
  async run(ctx) {
    const locator = await ctx.freshQueue();
    const [a, b] = await Promise.all([ctx.open(locator), ctx.open(locator)]);
    const id = await enqueued(a, 'key-a');
    for (const [who, session] of [
      ['the same child', a],
      ['another child', b],
    ] as const) {
      const again = await session.ok('enqueue', { key: 'key-a', action: 'check', payload: '{}', max_attempts: 3 });
      expectThat(
        again.outcome === 'deduplicated' && again.job_id === id,
        'enqueue',
        `key-a again from ${who} was answered ${JSON.stringify(again)}; expected deduplicated with job ${id}`,
      );
    }
    const race = await Promise.all([a, b, a, b].map((s) => s.ok('enqueue', { key: 'key-race', action: 'check', payload: '{}', max_attempts: 3 })));
    const created = race.filter((r) => r.outcome === 'created').length;
    expectThat(created === 1, 'enqueue', `four racing enqueues of key-race were answered created ${created} times; expected once`);
    expectThat(new Set(race.map((r) => r.job_id)).size === 1, 'enqueue', 'racing enqueues of key-race were given different job ids');
    const jobs = (await snapshotOf(a)).jobs;
    expectThat(jobs.length === 2, 'snapshot', `two keys enqueued, the snapshot holds ${jobs.length} jobs`);
  },
};
