import { leaseFields } from '../../../adapters/process/protocol.js';
import type { JobSnapshot } from '../../../port/snapshot.js';
import { CHECK_SETTINGS } from '../check-context.js';
import { enqueued, expectThat, jobOf, settle, snapshotOf, workOne } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';

const DIGEST = 'a'.repeat(64);

/** work makes the child's loop claim and send the job as a deliver event, carrying what every write must show. */
export const deliverStep: ProtocolStep = {
  name: 'deliver',
  describe: 'after work, the child claims the ready job and sends deliver: job, key, payload, attempt 1, an epoch, the holder, the lease',
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    const id = await enqueued(session, 'key-deliver');
    const claim = await workOne(session, 'w-check');
    const where = 'deliver';
    expectThat(claim.jobId === id && claim.key === 'key-deliver', where, `delivered job ${claim.jobId} (${claim.key}), not ${id}`);
    expectThat(claim.payload === JSON.stringify({ key: 'key-deliver' }), where, `the payload came back changed: ${claim.payload}`);
    expectThat(claim.attempt === 1, where, `the first claim is attempt ${claim.attempt}, not 1`);
    expectThat(claim.epoch >= 1, where, `the epoch of a claim must be 1 or more, got ${claim.epoch}`);
    expectThat(claim.holder === 'w-check', where, `the holder is ${claim.holder}, not the worker id w-check`);
    // null only where the queue holds a delivered job under no lease at all (Celery acknowledges a message as its task starts).
    expectThat(claim.leaseUntil !== null || ctx.hello?.capabilities.fencing !== true, where, 'lease_until is missing');
    const job = await jobOf(session, id);
    expectThat(job.status === 'running' && job.attempts === 1, 'snapshot', `a delivered job is ${job.status} at attempt ${job.attempts}`);
  },
};

/** heartbeat renews the holder's lease, and is refused (lease_lost) for any other epoch or holder. */
export const heartbeatStep: ProtocolStep = {
  name: 'heartbeat',
  describe: "heartbeat renews the holder's lease; under another epoch or holder it fails with lease_lost",
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    await enqueued(session, 'key-heartbeat');
    const claim = await workOne(session, 'w-check');
    const body = await session.ok('heartbeat', leaseFields(claim));
    const renewed = typeof body.lease_until === 'string' || (claim.leaseUntil === null && body.lease_until === null);
    expectThat(renewed, 'heartbeat', 'the answer to a renewal must carry lease_until (null only for a delivery with no lease)');
    for (const stale of [
      { ...claim, epoch: claim.epoch + 1 },
      { ...claim, holder: 'someone-else' },
    ]) {
      const refused = await session.failure('heartbeat', leaseFields(stale), 'fail lease_lost');
      expectThat(refused.code === 'lease_lost' && refused.definite, 'heartbeat', `a renewal not by the holder was answered ${refused.message}`);
    }
  },
};

/** Each settlement kind, on a job of its own: the write it asks for, answered with the new status. */
export const settleStep: ProtocolStep = {
  name: 'settle',
  describe: 'settle done/retry/review/compensate writes what it says (digest, retry delay, outcome); a done without a digest fails',
  async run(ctx) {
    const cases: Array<{ settlement: Record<string, unknown>; expect: (job: JobSnapshot) => string | null; status: string }> = [
      {
        settlement: { kind: 'done', digest: DIGEST },
        status: 'done',
        expect: (j) => (j.outcome === 'done' && j.resultDigest === DIGEST && j.holder === null ? null : 'done, outcome done, the digest, no holder'),
      },
      {
        settlement: { kind: 'retry', error: 'transient: check' },
        status: 'retry',
        expect: (j) =>
          j.lastError?.includes('transient: check') && j.holder === null && j.nextRunAt !== null ? null : 'retry, its error, a next run',
      },
      {
        settlement: { kind: 'review', reason: 'a person must look', error: null, awaiting_approval: false },
        status: 'review',
        expect: (j) => (j.outcome === 'review' && j.reviewReason === 'a person must look' ? null : 'review, outcome review, the reason'),
      },
      {
        settlement: { kind: 'review', reason: 'approve step x', awaiting_approval: true },
        status: 'review',
        expect: (j) => (j.outcome === 'awaiting_approval' ? null : 'review, outcome awaiting_approval'),
      },
      {
        settlement: { kind: 'compensate', reason: 'step y failed for good', error: 'permanent: no' },
        status: 'compensating',
        expect: (j) => (j.status === 'compensating' && j.holder === null ? null : 'compensating, the lease released'),
      },
    ];
    for (const [i, c] of cases.entries()) {
      const session = await ctx.open(await ctx.freshQueue());
      const id = await enqueued(session, `key-settle-${i}`);
      const claim = await workOne(session, 'w-check');
      if (c.settlement.kind === 'done') {
        const bad = await session.failure('settle', { ...leaseFields(claim), settlement: { kind: 'done', digest: 'not-a-digest' } }, 'fail');
        expectThat(bad.definite, 'settle', `done without a digest was answered ${bad.message} as info; nothing may be written, say fail`);
      }
      const body = await settle(session, claim, c.settlement);
      expectThat(body.status === c.status, 'settle', `settle ${c.settlement.kind} answered status ${JSON.stringify(body.status)}, not ${c.status}`);
      const job = await jobOf(session, id);
      const wrong = job.status === c.status ? c.expect(job) : `status ${c.status}`;
      expectThat(wrong === null, 'snapshot', `after settle ${JSON.stringify(c.settlement)} the job should be ${wrong}: ${JSON.stringify(job)}`);
      if (c.settlement.kind === 'retry') {
        const release = (await snapshotOf(session)).history.find((t) => t.jobId === id && t.to === 'retry');
        const base = CHECK_SETTINGS.retry_delay.base_ms;
        expectThat(
          release?.retryDelayMs === undefined || release.retryDelayMs >= base,
          'snapshot',
          `the release to retry records a delay of ${release?.retryDelayMs} ms, below the base ${base} ms`,
        );
      }
    }
  },
};
