import { UTC_TIME } from '../../../adapters/process/wire-schemas.js';
import { JOB_OUTCOMES, JOB_STATUSES } from '../../../kernel/vocabulary.js';
import { enqueued, expectThat, settle, snapshotOf, workOne } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';

/** The snapshot speaks the judge's words: its states, fixed-width UTC times, a history in order from each job's creation. */
export const snapshotStep: ProtocolStep = {
  name: 'snapshot',
  describe: 'snapshot: every job field, states and outcomes in the drill vocabulary, UTC times, a history in order starting at creation',
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    const before = await session.ok('progress');
    expectThat(typeof before.progress === 'string', 'progress', 'progress must be text');
    await enqueued(session, 'key-snap-1');
    await enqueued(session, 'key-snap-2');
    const claim = await workOne(session, 'w-check');
    await settle(session, claim, { kind: 'done', digest: 'e'.repeat(64) });
    const after = await session.ok('progress');
    expectThat(after.progress !== before.progress, 'progress', `progress stayed ${JSON.stringify(before.progress)} across enqueues and a settle`);
    const { jobs, history } = await snapshotOf(session);
    for (const job of jobs) {
      expectThat((JOB_STATUSES as readonly string[]).includes(job.status), 'snapshot', `job ${job.id} has status ${job.status}`);
      expectThat(
        job.outcome === null || (JOB_OUTCOMES as readonly string[]).includes(job.outcome),
        'snapshot',
        `job ${job.id} outcome ${job.outcome}`,
      );
      for (const [name, value] of Object.entries({
        createdAt: job.createdAt,
        updatedAt: job.updatedAt,
        leaseUntil: job.leaseUntil,
        nextRunAt: job.nextRunAt,
      }))
        expectThat(value === null || UTC_TIME.test(value), 'snapshot', `job ${job.id} ${name} ${JSON.stringify(value)} is not fixed-width UTC`);
    }
    expectThat(history.length >= 4, 'snapshot', `two jobs made, one claimed and done: ${history.length} history entries, expected 4 or more`);
    for (const [i, t] of history.entries()) {
      expectThat(i === 0 || t.seq > history[i - 1]!.seq, 'snapshot', `history seq ${t.seq} does not grow`);
      expectThat(t.kind === 'transition' || t.kind === 'refused', 'snapshot', `history kind ${t.kind}`);
      expectThat(UTC_TIME.test(t.at), 'snapshot', `history at ${JSON.stringify(t.at)} is not fixed-width UTC`);
    }
    for (const job of jobs) {
      const first = history.find((t) => t.jobId === job.id);
      expectThat(
        first?.from === null && first.to === 'pending' && first.actor === 'producer',
        'snapshot',
        `job ${job.id}'s history does not start at its creation`,
      );
    }
    const light = await session.ok('snapshot', { history: false });
    expectThat(Array.isArray(light.jobs), 'snapshot', 'snapshot with history false must still list the jobs');
  },
};
