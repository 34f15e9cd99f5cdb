import { count, toClaim } from '../../../adapters/process/protocol.js';
import { enqueued, expectThat, settle, wellFormed } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';
import type { Session } from '../session.js';
import { StepFailure, schemaChecked } from '../session.js';

function startWork(session: Session, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  return session.channel.request(
    'work',
    { worker_id: 'w-check', poll_ms: 20, max_jobs: 0, exit_when_drained: false, ...fields },
    session.answerTimeoutMs,
  );
}

async function processed(ended: Promise<Record<string, unknown>>, why: string): Promise<number> {
  let body: Record<string, unknown>;
  try {
    body = await ended;
  } catch (error) {
    throw new StepFailure('work', `${why}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return wellFormed('work', () => count(schemaChecked('work', body), 'processed', 'the answer to work'));
}

/** The worker loop ends as asked (stop_work, max_jobs, exit_when_drained), answering work with how many jobs it processed. */
export const workLoopStep: ProtocolStep = {
  name: 'work-loop',
  describe: 'work is answered (processed N) once its loop ends: after stop_work, after max_jobs settled jobs, or drained',
  async run(ctx) {
    const idle = await ctx.open(await ctx.freshQueue());
    const stopped = startWork(idle, {});
    await idle.ok('stop_work');
    expectThat((await processed(stopped, 'an idle loop after stop_work')) === 0, 'work', 'an idle loop stopped having processed jobs');

    const one = await ctx.open(await ctx.freshQueue());
    await enqueued(one, 'key-loop-1');
    await enqueued(one, 'key-loop-2');
    const ended = startWork(one, { max_jobs: 1 });
    const wire = await one.nextDelivery('after work with two jobs ready');
    await settle(
      one,
      wellFormed('deliver', () => toClaim(wire, 'deliver.delivery')),
      { kind: 'done', digest: 'd'.repeat(64) },
    );
    expectThat((await processed(ended, 'a loop with max_jobs 1 after one settled job')) === 1, 'work', 'max_jobs 1 did not end at 1');

    const drained = await ctx.open(await ctx.freshQueue());
    const empty = startWork(drained, { exit_when_drained: true });
    expectThat((await processed(empty, 'exit_when_drained on an empty queue')) === 0, 'work', 'a drained loop processed jobs');
  },
};
