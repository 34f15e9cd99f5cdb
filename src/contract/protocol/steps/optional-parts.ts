import { leaseFields, toClaim } from '../../../adapters/process/protocol.js';
import { enqueued, expectThat, jobOf, settle, wellFormed, workOne } from '../expect.js';
import type { ProtocolStep } from '../protocol-check.js';

/** The coordinator's takeover ops: an expired lease is listed, released once (same epoch), and never twice. */
export const takeoverStep: ProtocolStep = {
  name: 'takeover',
  part: 'takeover',
  describe: "expire_lease, expired_leases lists the job as its holder's claim, release_expired releases it once and refuses a second time",
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    const id = await enqueued(session, 'key-takeover');
    const claim = await workOne(session, 'w-dead');
    await session.ok('expire_lease', { job_id: id });
    const listed = await session.ok('expired_leases');
    const claims = wellFormed('expired_leases', () => (Array.isArray(listed.claims) ? listed.claims : []).map((c, i) => toClaim(c, `claims[${i}]`)));
    const expired = claims.find((c) => c.jobId === id);
    expectThat(
      expired?.epoch === claim.epoch && expired.holder === 'w-dead',
      'expired_leases',
      `job ${id} is not listed as w-dead's claim under epoch ${claim.epoch}`,
    );
    const release = { job_id: id, epoch: claim.epoch, attempt: claim.attempt, to: 'retry', reason: 'its holder died', by: 'c-check' };
    expectThat((await session.ok('release_expired', release)).released === true, 'release_expired', 'the expired lease was not released');
    expectThat((await session.ok('release_expired', release)).released === false, 'release_expired', 'the same expired lease was released twice');
    const job = await jobOf(session, id);
    expectThat(job.status === 'retry' && job.holder === null, 'release_expired', `a released job is ${job.status}, held by ${job.holder}`);
    const moved = await session.ok('maintain');
    expectThat(typeof moved.moved === 'number', 'maintain', 'maintain must answer how many jobs it moved');
  },
};

/** The saga hand-off: a compensating job is claimed by the coordinator under a new epoch and ends in review as compensated. */
export const compensationStep: ProtocolStep = {
  name: 'compensation',
  part: 'compensation',
  describe: 'claim_compensation takes a compensating job under a new epoch; finish_compensation ends it in review with the outcome',
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    const id = await enqueued(session, 'key-compensate');
    const claim = await workOne(session, 'w-check');
    await settle(session, claim, { kind: 'compensate', reason: 'step failed for good', error: 'permanent: check' });
    const body = await session.ok('claim_compensation', { coordinator_id: 'c-check' });
    const taken = wellFormed('claim_compensation', () => toClaim(body.claim, 'claim_compensation.claim'));
    expectThat(taken.jobId === id && taken.epoch > claim.epoch, 'claim_compensation', `took job ${taken.jobId} under epoch ${taken.epoch}`);
    const stale = await session.failure('finish_compensation', { ...leaseFields(claim), outcome: 'compensated', reason: 'x' }, 'fail lease_lost');
    expectThat(stale.code === 'lease_lost', 'finish_compensation', `a finish under the worker's old epoch was answered ${stale.message}`);
    await session.ok('finish_compensation', { ...leaseFields(taken), outcome: 'compensated', reason: 'undone in reverse order' });
    const job = await jobOf(session, id);
    expectThat(job.status === 'review' && job.outcome === 'compensated', 'finish_compensation', `the saga ended ${job.status}/${job.outcome}`);
  },
};

/** Only a person leaves review: requeue_from_review sends a job in review back to pending with one more attempt, and nothing else. */
export const humanStep: ProtocolStep = {
  name: 'requeue-from-review',
  part: 'human',
  describe: 'requeue_from_review moves a job in review to pending with an attempt to spare; a job not in review is answered false',
  async run(ctx) {
    const session = await ctx.open(await ctx.freshQueue());
    const id = await enqueued(session, 'key-review', 1);
    // A loop of one job, ended before the requeue: a queue's own loop (Celery's, Sidekiq's) would take the requeued job at once.
    const ended = session.channel.request(
      'work',
      { worker_id: 'w-check', poll_ms: 20, max_jobs: 1, exit_when_drained: false },
      session.answerTimeoutMs,
    );
    const wire = await session.nextDelivery('after work with a job ready');
    const claim = wellFormed('deliver', () => toClaim(wire, 'deliver.delivery'));
    await settle(session, claim, { kind: 'review', reason: 'a person must look' });
    await ended;
    const first = await session.ok('requeue_from_review', { job_id: id, by: 'alice', note: 'checked' });
    expectThat(first.requeued === true, 'requeue_from_review', 'a job in review was not requeued');
    const job = await jobOf(session, id);
    expectThat(
      job.status === 'pending' && job.maxAttempts > job.attempts,
      'requeue_from_review',
      `requeued job is ${job.status}, ${job.attempts} of ${job.maxAttempts}`,
    );
    const again = await session.ok('requeue_from_review', { job_id: id, by: 'alice', note: 'again' });
    expectThat(again.requeued === false, 'requeue_from_review', 'a job not in review was requeued');
  },
};
