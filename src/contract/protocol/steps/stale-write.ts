import { leaseFields } from '../../../adapters/process/protocol.js';
import type { CheckContext } from '../check-context.js';
import { delivered, enqueued, expectThat, jobOf, settle, snapshotOf, workOne } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';
import type { Session } from '../session.js';

const LEASE_MS = 300;

/** Makes the first holder's lease run out: forced where the child offers expire_lease, else on the caller's clock, else in real time. */
async function expire(ctx: CheckContext, session: Session, jobId: string): Promise<void> {
  if (ctx.hello?.ops.has('expire_lease')) await session.ok('expire_lease', { job_id: jobId });
  else if (ctx.hello?.capabilities.clock === 'caller') ctx.advance(LEASE_MS * 10);
  else await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
}

/** A holder whose lease was taken over writes under its old epoch: refused (fail lease_lost), nothing changed, the refusal recorded. */
export const staleWriteStep: ProtocolStep = {
  name: 'stale-write-refused',
  describe: 'a holder whose lease ran out and was claimed again is refused (fail lease_lost), changes nothing, and the refusal is in the history',
  skipWhen: (hello) =>
    hello.capabilities.fencing === true ? null : `the hello says the queue does not fence a stale holder: ${hello.capabilities.fencing}`,
  async run(ctx) {
    const locator = await ctx.freshQueue();
    const first = await ctx.open(locator, { lease_ms: LEASE_MS });
    const id = await enqueued(first, 'key-stale');
    const old = await workOne(first, 'w-old');
    await expire(ctx, first, id);
    const second = await ctx.open(locator, { lease_ms: 10_000 });
    void second.channel.request('work', { worker_id: 'w-new', poll_ms: 20, max_jobs: 0, exit_when_drained: false }).catch(() => undefined);
    const current = await delivered(second, 'once the first lease ran out (the job must be taken back and claimed again)');
    expectThat(current.jobId === id && current.epoch > old.epoch, 'deliver', `the new claim's epoch ${current.epoch} is not above ${old.epoch}`);
    const refused = await first.failure('settle', { ...leaseFields(old), settlement: { kind: 'done', digest: 'b'.repeat(64) } }, 'fail lease_lost');
    expectThat(
      refused.code === 'lease_lost' && refused.definite,
      'settle',
      `the stale holder's done was answered ${refused.message}, not fail lease_lost`,
    );
    const job = await jobOf(second, id);
    expectThat(
      job.status === 'running' && job.epoch === current.epoch && job.resultDigest === null,
      'settle',
      `the stale holder's refused write changed the job: ${JSON.stringify(job)}`,
    );
    if (ctx.hello?.capabilities.evidence.refusals === true) {
      const history = (await snapshotOf(second)).history;
      const recorded = history.some((t) => t.jobId === id && t.kind === 'refused' && t.epoch === old.epoch);
      expectThat(recorded, 'snapshot', `refusals are stated true, but no refused entry under epoch ${old.epoch} is in job ${id}'s history`);
    }
    await settle(second, current, { kind: 'done', digest: 'c'.repeat(64) });
  },
};
