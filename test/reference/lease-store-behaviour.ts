import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import type { TxEntry } from '../../src/port/checkpoint.js';
import { type Actor, isAllowedTransition, JOB_STATUSES, type JobStatus } from '../../src/port/states.js';
import { MissingDigestError } from '../../src/reference/digest.js';
import type { JobEvent, JobRow, Lease } from '../../src/reference/job.js';
import type { LeaseStore, LeaseStoreOptions } from '../../src/reference/lease-store.js';

/*
 * What every store of the reference queue must do, written against the
 * LeaseStore interface alone, so each store (PostgreSQL now, SQLite later)
 * runs the same suite. No time travel: a lease expires by expireLease, and a
 * retried job is ready at once (zero retry delay).
 */

/** A fresh, empty queue for one test, and a way to open more connections to it. */
export interface LeaseStoreFixture {
  store: LeaseStore;
  /** Another connection to the same queue, as another process would open it (closed by `close`). */
  connect(options?: Partial<LeaseStoreOptions>): Promise<LeaseStore>;
  /** Closes every connection it opened and removes the queue. */
  close(): Promise<void>;
}

/** Makes a fresh queue whose first connection has `options`. */
export type LeaseStoreFactory = (options: LeaseStoreOptions) => Promise<LeaseStoreFixture>;

export const ZERO_DELAY = { baseMs: 0, capMs: 0, jitterMs: 0 };
export const DIGEST = createHash('sha256').update('verified result').digest('hex');
export const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** How the suite's connections behave: the system clock (a store may use its server's), a seeded random, no retry delay. */
export function behaviourOptions(): LeaseStoreOptions {
  return { clock: systemClock(), random: seededRandom(7), leaseMs: 30_000, skewMarginMs: 1_000, retryDelay: ZERO_DELAY };
}

const ENTRY: TxEntry = { stepId: 'charge', action: 'execute', key: 'step-key-1', status: 'started' };

export function describeLeaseStore(label: string, factory: LeaseStoreFactory): void {
  describe(`${label}: LeaseStore behaviour`, () => {
    let fx: LeaseStoreFixture | undefined;
    let store: LeaseStore;

    beforeEach(async () => {
      fx = await factory(behaviourOptions());
      store = fx.store;
    });

    afterEach(async () => {
      await fx?.close();
      fx = undefined;
    });

    const other = (options?: Partial<LeaseStoreOptions>) => fx!.connect(options);

    async function add(key = 'job-1', maxAttempts = 3, s: LeaseStore = store): Promise<number> {
      return (await s.enqueue({ key, action: 'charge', payloadJson: '{"amount":100}', maxAttempts })).jobId;
    }

    async function claimBy(workerId: string, s: LeaseStore = store): Promise<{ job: JobRow; lease: Lease }> {
      const job = await s.claim(workerId);
      if (!job) throw new Error(`${workerId} claimed nothing`);
      return { job, lease: { jobId: job.id, workerId, fence: job.lease_fence } };
    }

    async function row(jobId: number, s: LeaseStore = store): Promise<JobRow> {
      const job = (await s.jobs()).find((j) => j.id === jobId);
      if (!job) throw new Error(`no job ${jobId}`);
      return job;
    }

    async function history(jobId: number): Promise<JobEvent[]> {
      return (await store.events()).filter((e) => e.job_id === jobId);
    }

    async function moves(jobId: number): Promise<string[]> {
      return (await history(jobId)).map((e) => `${e.kind === 'refused' ? 'refused ' : ''}${e.from_status ?? '(new)'}>${e.to_status}`);
    }

    function expectStamps(job: JobRow): void {
      for (const time of [job.created_at, job.updated_at, job.next_run_at]) expect(time).toMatch(STAMP);
      if (job.lease_until !== null) expect(job.lease_until).toMatch(STAMP);
    }

    /** Every job's history replays to its row: a chain of allowed changes from its creation; refusals move nothing. */
    async function expectHistoryMatchesRows(s: LeaseStore = store): Promise<void> {
      const events = await s.events();
      expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
      for (const job of await s.jobs()) {
        let status: JobStatus | null = null;
        let claims = 0;
        for (const event of events.filter((e) => e.job_id === job.id)) {
          expect(event.at).toMatch(STAMP);
          expect(event.from_status).toBe(status);
          if (event.kind === 'refused') continue;
          expect(
            isAllowedTransition(event.from_status, event.to_status, event.actor as Actor),
            `${event.from_status}>${event.to_status} by ${event.actor}`,
          ).toBe(true);
          if (event.to_status === 'running') claims++;
          status = event.to_status;
        }
        expect(status, `job ${job.id}`).toBe(job.status);
        expect(claims, `claims of job ${job.id}`).toBe(job.attempts);
      }
    }

    describe('enqueue', () => {
      it('creates a job once per key: the same id after, from any connection', async () => {
        const first = await store.enqueue({ key: 'k1', action: 'charge', payloadJson: '{"n":1}', maxAttempts: 4 });
        const again = await store.enqueue({ key: 'k1', action: 'charge', payloadJson: '{"n":2}', maxAttempts: 9 });
        const fromOther = await (await other()).enqueue({ key: 'k1', action: 'refund', payloadJson: '{}', maxAttempts: 1 });
        const second = await store.enqueue({ key: 'k2', action: 'charge', payloadJson: '{}', maxAttempts: 1 });
        expect(first.created).toBe(true);
        expect(again).toEqual({ created: false, jobId: first.jobId });
        expect(fromOther).toEqual({ created: false, jobId: first.jobId });
        expect(second.created).toBe(true);
        expect(second.jobId).not.toBe(first.jobId);

        const jobs = await store.jobs();
        expect(jobs.map((j) => j.idempotency_key)).toEqual(['k1', 'k2']);
        const job = jobs[0]!;
        expect(job).toMatchObject({
          id: first.jobId,
          action: 'charge',
          payload_json: '{"n":1}',
          status: 'pending',
          attempts: 0,
          max_attempts: 4,
          leased_by: null,
          lease_until: null,
          result_digest: null,
          last_error: null,
          lease_fence: 0,
          review_reason: null,
          outcome: null,
        });
        expectStamps(job);
        const creations = (await store.events()).filter((e) => e.from_status === null);
        expect(creations).toHaveLength(2);
        expect(creations[0]).toMatchObject({
          job_id: first.jobId,
          kind: 'transition',
          to_status: 'pending',
          attempt: 0,
          fence: 0,
          worker: null,
          actor: 'producer',
          reason: 'enqueued',
        });
      });
    });

    describe('claim', () => {
      it('takes the oldest ready job first, counting the attempt under a new epoch', async () => {
        const a = await add('a');
        const b = await add('b');
        const c = await add('c');
        const first = await claimBy('w1');
        const second = await claimBy('w2', await other());
        const third = await claimBy('w1');
        expect([first.job.id, second.job.id, third.job.id]).toEqual([a, b, c]);
        expect(await store.claim('w3')).toBeNull();

        expect(first.job).toMatchObject({ status: 'running', attempts: 1, lease_fence: 1, leased_by: 'w1', outcome: null });
        expectStamps(first.job);
        expect(first.job.lease_until! > first.job.created_at).toBe(true);
        expect(await row(a)).toEqual(first.job);
        expect(await moves(a)).toEqual(['(new)>pending', 'pending>running']);
        const [, claimed] = await history(a);
        expect(claimed).toMatchObject({
          kind: 'transition',
          attempt: 1,
          fence: 1,
          worker: 'w1',
          actor: 'worker',
          reason: `claimed by w1, lease until ${first.job.lease_until}`,
        });
      });

      it('returns null when nothing is ready: none queued, all held, or waiting out a retry delay', async () => {
        expect(await store.claim('w1')).toBeNull();
        await add('a');
        const held = await claimBy('w1');
        expect(await store.claim('w2')).toBeNull();
        const patient = await other({ retryDelay: { baseMs: 3_600_000, capMs: 3_600_000, jitterMs: 0 } });
        expect(await patient.retry(held.lease, 'try later')).toEqual({ ok: true, status: 'retry' });
        const waiting = await row(held.job.id);
        expect(waiting.next_run_at > waiting.updated_at).toBe(true);
        // The delay it chose is in the history, for the retry-backoff invariant.
        expect((await history(held.job.id)).at(-1)).toMatchObject({ to_status: 'retry', delay_ms: 3_600_000 });
        expect(await store.claim('w2')).toBeNull();
      });

      it('renews a held lease on heartbeat, without a history row', async () => {
        await add('a');
        const { job, lease } = await claimBy('w1');
        const before = await store.progress();
        const renewed = await store.heartbeat(lease);
        const after = await row(job.id);
        // It says until when, as stored: what the worker tells the harness (the judge's time base for leases).
        expect(renewed).toEqual({ ok: true, status: 'running', leaseUntil: after.lease_until });
        expect(after.lease_until! >= job.lease_until!).toBe(true);
        expect(after).toMatchObject({ status: 'running', leased_by: 'w1', lease_fence: 1, attempts: 1 });
        expect(await store.progress()).toBe(before);
      });
    });

    describe('fencing', () => {
      it("refuses a stale holder's writes, records each refusal, and changes nothing", async () => {
        const id = await add('a');
        const stale = (await claimBy('w1')).lease;
        await store.expireLease(id);
        const fresh = await claimBy('w2', await other());
        expect(fresh.job).toMatchObject({ id, lease_fence: 2, attempts: 2 });
        const before = await row(id);

        const refused = { ok: false, code: 'QD_LEASE_LOST', current: { status: 'running', leasedBy: 'w2', fence: 2 } };
        expect(await store.heartbeat(stale)).toEqual(refused);
        expect(await store.complete(stale, DIGEST)).toEqual(refused);
        expect(await store.retry(stale, 'late failure')).toEqual(refused);
        expect(await store.review(stale, 'late review')).toEqual(refused);
        expect(await store.beginCompensation(stale, 'late compensation', 'e')).toEqual(refused);
        // The same worker under an old epoch (restarted), and another worker showing the live epoch.
        expect(await store.complete({ jobId: id, workerId: 'w2', fence: 1 }, DIGEST)).toEqual(refused);
        expect(await store.complete({ jobId: id, workerId: 'w1', fence: 2 }, DIGEST)).toEqual(refused);

        expect(await row(id)).toEqual(before);
        const refusals = (await history(id)).filter((e) => e.kind === 'refused');
        expect(refusals.map((e) => `${e.from_status}>${e.to_status} ${e.worker}@${e.fence}`)).toEqual([
          'running>running w1@1',
          'running>done w1@1',
          'running>retry w1@1',
          'running>review w1@1',
          'running>compensating w1@1',
          'running>done w2@1',
          'running>done w1@2',
        ]);
        for (const event of refusals) expect(event).toMatchObject({ attempt: 2, actor: 'worker' });
        expect(refusals[0]!.reason).toBe('heartbeat refused: lease of w1 under fence 1 was lost (job is running, held by w2 under fence 2)');
        expect(refusals[1]!.reason).toBe('complete refused: lease of w1 under fence 1 was lost (job is running, held by w2 under fence 2)');

        // The live holder is unaffected.
        expect(await store.complete(fresh.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
        expect(await store.heartbeat(fresh.lease)).toEqual({
          ok: false,
          code: 'QD_LEASE_LOST',
          current: { status: 'done', leasedBy: null, fence: 2 },
        });
        expect((await history(id)).at(-1)!.reason).toBe('heartbeat refused: lease of w2 under fence 2 was lost (job is done, not leased)');
        await expectHistoryMatchesRows();
      });

      it('takes an expired lease back on the next claim, to retry, and claims it again under the next epoch', async () => {
        const id = await add('a', 3);
        const first = await claimBy('w1');
        await store.expireLease(id);
        const expired = await store.expiredLeases();
        expect(expired.map((j) => [j.id, j.lease_fence, j.leased_by])).toEqual([[id, 1, 'w1']]);

        const second = await claimBy('w2', await other());
        expect(second.job).toMatchObject({ id, attempts: 2, lease_fence: 2, leased_by: 'w2', status: 'running' });
        expect(await store.expiredLeases()).toEqual([]);
        expect(await moves(id)).toEqual(['(new)>pending', 'pending>running', 'running>retry', 'retry>running']);
        const [, , swept, reclaimed] = await history(id);
        expect(swept).toMatchObject({ actor: 'worker', worker: 'w2', attempt: 1, fence: 1 });
        expect(swept!.reason).toMatch(/^lease of w1 expired at \d{4}-\d\d-\d\dT[\d:.]+Z$/);
        expect(reclaimed).toMatchObject({ attempt: 2, fence: 2, worker: 'w2' });
        expect(first.job.lease_fence).toBe(1);
      });

      it('sends an expired lease on its last attempt to review (outcome review), never to retry', async () => {
        const id = await add('a', 1);
        await claimBy('w1');
        await store.expireLease(id);
        expect(await store.claim('w2')).toBeNull();
        const job = await row(id);
        expect(job).toMatchObject({ status: 'review', outcome: 'review', leased_by: null, lease_until: null, attempts: 1 });
        expect(job.review_reason).toMatch(/^lease of w1 expired at .* on its last attempt \(1 of 1\)$/);
        expect((await history(id)).at(-1)).toMatchObject({ from_status: 'running', to_status: 'review', actor: 'worker', worker: 'w2' });
      });
    });

    describe('done and the next claim together', () => {
      it('writes the done and claims the oldest ready job for the same worker, a refused done recorded as refused', async (context) => {
        if (!store.completeAndClaim) {
          context.skip();
          return;
        }
        const a = await add('a');
        const b = await add('b');
        const c = await add('c');
        const first = await claimBy('w1');
        const joined = await store.completeAndClaim(first.lease, DIGEST, 'w1');
        expect(joined.write).toEqual({ ok: true, status: 'done' });
        expect(joined.next).toMatchObject({ id: b, status: 'running', attempts: 1, lease_fence: 1, leased_by: 'w1' });
        expect(await row(a)).toMatchObject({ status: 'done', outcome: 'done', result_digest: DIGEST, leased_by: null });
        expect(await row(b)).toEqual(joined.next);
        expect(await moves(a)).toEqual(['(new)>pending', 'pending>running', 'running>done']);
        expect((await history(b)).at(-1)).toMatchObject({
          to_status: 'running',
          worker: 'w1',
          reason: `claimed by w1, lease until ${joined.next!.lease_until}`,
        });

        // A stale lease: refused and recorded as complete's refusal; the claim is made all the same, as the worker would make it next.
        const stale = { jobId: b, workerId: 'w1', fence: 0 };
        const refused = await store.completeAndClaim(stale, DIGEST, 'w1');
        expect(refused.write).toEqual({ ok: false, code: 'QD_LEASE_LOST', current: { status: 'running', leasedBy: 'w1', fence: 1 } });
        expect(refused.next).toMatchObject({ id: c, leased_by: 'w1' });
        expect((await history(b)).at(-1)).toMatchObject({ kind: 'refused', to_status: 'done', fence: 0 });

        // Nothing left ready: the done alone.
        expect(await store.completeAndClaim({ jobId: b, workerId: 'w1', fence: 1 }, DIGEST, 'w1')).toEqual({
          write: { ok: true, status: 'done' },
          next: null,
        });
        expect(await store.completeAndClaim({ jobId: c, workerId: 'w1', fence: 1 }, DIGEST, 'w1')).toEqual({
          write: { ok: true, status: 'done' },
          next: null,
        });
        await expectHistoryMatchesRows();
      });

      it('takes an expired lease back when it claims, as a claim does, and can hand that job to the worker', async (context) => {
        if (!store.completeAndClaim) {
          context.skip();
          return;
        }
        const a = await add('a');
        const b = await add('b');
        const held = await claimBy('w1');
        const lost = await claimBy('w2', await other());
        await store.expireLease(b);
        const joined = await store.completeAndClaim(held.lease, DIGEST, 'w1');
        expect(joined.next).toMatchObject({ id: b, attempts: 2, lease_fence: 2, leased_by: 'w1' });
        expect(await moves(b)).toEqual(['(new)>pending', 'pending>running', 'running>retry', 'retry>running']);
        expect((await store.complete(lost.lease, DIGEST)).ok).toBe(false);
        expect((await row(a)).status).toBe('done');
        await expectHistoryMatchesRows();
      });
    });

    describe('settling a held job', () => {
      it('completes only with a verified digest, outcome done', async () => {
        const id = await add('a');
        const { lease } = await claimBy('w1');
        const before = await store.progress();
        for (const bad of ['', 'abc', DIGEST.toUpperCase(), `${DIGEST}0`]) {
          await expect(store.complete(lease, bad)).rejects.toBeInstanceOf(MissingDigestError);
        }
        expect((await row(id)).status).toBe('running');
        expect(await store.progress()).toBe(before);

        expect(await store.complete(lease, DIGEST)).toEqual({ ok: true, status: 'done' });
        expect(await row(id)).toMatchObject({ status: 'done', outcome: 'done', result_digest: DIGEST, leased_by: null, lease_until: null });
        expect((await history(id)).at(-1)).toMatchObject({
          from_status: 'running',
          to_status: 'done',
          reason: `done, verified result ${DIGEST.slice(0, 12)}`,
        });
      });

      it('retries until the attempts run out, then goes to review with outcome review', async () => {
        const id = await add('a', 2);
        const first = await claimBy('w1');
        expect(await store.retry(first.lease, 'flaky')).toEqual({ ok: true, status: 'retry' });
        expect(await row(id)).toMatchObject({ status: 'retry', outcome: null, last_error: 'flaky', leased_by: null, lease_until: null });
        expect((await history(id)).at(-1)).toMatchObject({ reason: 'retry in 0 ms: flaky', delay_ms: 0 });

        const second = await claimBy('w2');
        expect(second.job).toMatchObject({ id, attempts: 2, lease_fence: 2 });
        expect(await store.retry(second.lease, 'flaky again')).toEqual({ ok: true, status: 'review' });
        expect(await row(id)).toMatchObject({
          status: 'review',
          outcome: 'review',
          review_reason: 'retries exhausted (2 of 2): flaky again',
          last_error: 'flaky again',
        });
        expect(await store.claim('w3')).toBeNull();
      });

      it('sets the outcome of every way a job ends', async () => {
        const done = await add('done');
        const failed = await add('review');
        const waiting = await add('approval');
        const compensated = await add('compensated');
        const unrecoverable = await add('compensation-failed');
        const leases = new Map<number, Lease>();
        for (let i = 0; i < 5; i++) {
          const { job, lease } = await claimBy('w1');
          expect(job.outcome).toBeNull();
          leases.set(job.id, lease);
        }
        expect(await store.complete(leases.get(done)!, DIGEST)).toMatchObject({ ok: true });
        expect(await store.review(leases.get(failed)!, 'a person must look', 'boom')).toMatchObject({ ok: true, status: 'review' });
        expect(await store.review(leases.get(waiting)!, 'step 2 prepared, awaiting approval', undefined, 'awaiting_approval')).toMatchObject({
          ok: true,
          status: 'review',
        });
        for (const id of [compensated, unrecoverable]) {
          expect(await store.beginCompensation(leases.get(id)!, 'plan failed for good', 'policy')).toEqual({ ok: true, status: 'compensating' });
          expect((await row(id)).outcome).toBeNull();
        }
        for (const [id, outcome] of [
          [compensated, 'compensated'],
          [unrecoverable, 'compensation_failed'],
        ] as const) {
          const job = await store.claimCompensation('coord');
          expect(job?.id).toBe(id);
          expect(await store.finishCompensation({ jobId: id, workerId: 'coord', fence: job!.lease_fence }, outcome, `saga ${outcome}`)).toEqual({
            ok: true,
            status: 'review',
          });
        }
        const outcomes = Object.fromEntries((await store.jobs()).map((j) => [j.idempotency_key, [j.status, j.outcome]]));
        expect(outcomes).toEqual({
          done: ['done', 'done'],
          review: ['review', 'review'],
          approval: ['review', 'awaiting_approval'],
          compensated: ['review', 'compensated'],
          'compensation-failed': ['review', 'compensation_failed'],
        });
        expect((await row(failed)).review_reason).toBe('a person must look');
        expect((await row(failed)).last_error).toBe('boom');
        await expectHistoryMatchesRows();
      });
    });

    describe('review', () => {
      it('is sticky: no claim takes a job in review; a person requeues it, in the history and the saga log', async () => {
        const id = await add('a');
        const { lease } = await claimBy('w1');
        expect(await store.review(lease, 'needs a look', 'err')).toEqual({ ok: true, status: 'review' });
        await store.expireLease(id);
        expect(await store.claim('w2')).toBeNull();
        expect(await (await other()).claim('w3')).toBeNull();
        expect((await row(id)).status).toBe('review');

        expect(await store.requeueFromReview(id, 'alice', 'checked the ledger')).toBe(true);
        const job = await row(id);
        expect(job).toMatchObject({ status: 'pending', outcome: null, review_reason: null, attempts: 1, max_attempts: 3 });
        expect((await history(id)).at(-1)).toMatchObject({
          kind: 'transition',
          from_status: 'review',
          to_status: 'pending',
          actor: 'human',
          worker: null,
          attempt: 1,
          fence: 1,
          reason: 'requeued by alice: checked the ledger',
        });
        const log = await store.readTx(id);
        expect(log).toHaveLength(1);
        expect(log[0]).toMatchObject({
          job_id: String(id),
          step_id: '(job)',
          action: 'requeue',
          idempotency_key: 'a',
          status: 'success',
          worker: 'human:alice',
          detail: 'checked the ledger',
          attempt: 1,
          epoch: 1,
        });
        expect(log[0]!.at).toMatch(STAMP);

        const before = await store.progress();
        expect(await store.requeueFromReview(id, 'alice', 'again')).toBe(false);
        expect(await store.progress()).toBe(before);
        expect((await claimBy('w2')).job).toMatchObject({ id, attempts: 2, lease_fence: 2 });
        await expectHistoryMatchesRows();
      });

      it('allows one more attempt to a job that had none left', async () => {
        const id = await add('a', 1);
        const { lease } = await claimBy('w1');
        expect(await store.retry(lease, 'boom')).toEqual({ ok: true, status: 'review' });
        expect(await store.requeueFromReview(id, 'bob', 'fixed upstream')).toBe(true);
        expect((await row(id)).max_attempts).toBe(2);
        expect((await claimBy('w2')).job).toMatchObject({ id, attempts: 2 });
      });

      it('commits a given checkpoint with the requeue, and nothing when the job is not in review', async () => {
        const id = await add('a');
        const approval: TxEntry = { stepId: 'transfer', action: 'approve', key: 'step-key-2', status: 'success', detail: 'approved' };
        const before = await store.progress();
        expect(await store.requeueFromReview(id, 'bob', 'approve', approval)).toBe(false);
        expect(await store.progress()).toBe(before);

        const { lease } = await claimBy('w1');
        await store.review(lease, 'step 2 prepared', undefined, 'awaiting_approval');
        expect(await store.requeueFromReview(id, 'bob', 'approved transfer', approval)).toBe(true);
        const log = await store.readTx(id);
        expect(log.map((r) => [r.action, r.step_id, r.worker, r.attempt, r.epoch])).toEqual([
          ['approve', 'transfer', 'human:bob', 1, 1],
          ['requeue', '(job)', 'human:bob', 1, 1],
        ]);
      });

      it("grants an approval's run on top of the job's attempts, where a plain requeue allows only one past those spent", async () => {
        const approval: TxEntry = { stepId: 'transfer', action: 'approve', key: 'step-key-2', status: 'success', detail: 'approved' };
        const approved = await add('a', 2);
        const held = await add('b', 2);
        const first = await claimBy('w1');
        await store.review(first.lease, 'step 2 prepared', undefined, 'awaiting_approval');
        const second = await claimBy('w1');
        await store.review(second.lease, 'step 2 prepared', undefined, 'awaiting_approval');
        expect([first.job.id, second.job.id]).toEqual([approved, held]);
        expect(await store.requeueFromReview(approved, 'bob', 'approved transfer', approval)).toBe(true);
        expect(await store.requeueFromReview(held, 'bob', 'looked at it')).toBe(true);
        // The approved job still has both its attempts after the one that asked; the other has the one it had left.
        expect((await row(approved)).max_attempts).toBe(3);
        expect((await row(held)).max_attempts).toBe(2);
      });
    });

    describe('checkpoints', () => {
      it("accepts the holder's checkpoint with its attempt and epoch, refuses a stale or finished lease's", async () => {
        const id = await add('a');
        const otherJob = await add('b');
        const first = await claimBy('w1');
        const entry: TxEntry = { ...ENTRY, externalReference: 'ext-1', compensationStatus: null, detail: 'calling', errorKind: null };
        expect(await store.appendTx(first.lease, entry)).toBe(true);
        const [written] = await store.readTx(id);
        expect(written).toMatchObject({
          job_id: String(id),
          step_id: 'charge',
          action: 'execute',
          idempotency_key: 'step-key-1',
          status: 'started',
          external_reference: 'ext-1',
          compensation_status: null,
          attempt: 1,
          epoch: 1,
          worker: 'w1',
          detail: 'calling',
          error_kind: null,
        });
        expect(written!.at).toMatch(STAMP);

        await store.expireLease(id);
        await claimBy('w2'); // sweeps job a back to retry, then claims the oldest ready: a again
        const second = { jobId: id, workerId: 'w2', fence: 2 };
        expect(await store.appendTx(first.lease, { ...ENTRY, status: 'success' })).toBe(false);
        expect(await store.appendTx(second, { ...ENTRY, status: 'failed', errorKind: 'transient' })).toBe(true);
        expect((await store.readTx(id)).map((r) => [r.status, r.attempt, r.epoch, r.worker, r.error_kind])).toEqual([
          ['started', 1, 1, 'w1', null],
          ['failed', 2, 2, 'w2', 'transient'],
        ]);

        expect(await store.complete(second, DIGEST)).toMatchObject({ ok: true });
        expect(await store.appendTx(second, ENTRY)).toBe(false);
        const third = await claimBy('w3');
        expect(third.job.id).toBe(otherJob);
        expect(await store.appendTx(third.lease, { ...ENTRY, stepId: 'other' })).toBe(true);
        expect((await store.readTx()).map((r) => r.job_id)).toEqual([String(id), String(id), String(otherJob)]);
        expect(await store.readTx(otherJob)).toHaveLength(1);
      });
    });

    describe('releasing an expired lease', () => {
      const reconciled: TxEntry = {
        stepId: 'charge',
        action: 'reconcile',
        key: 'step-key-1',
        status: 'not_executed',
        detail: 'the world has no such charge',
      };

      it('commits the release and its checkpoint together, once', async () => {
        const id = await add('a');
        await claimBy('w1');
        await store.expireLease(id);
        const [expired] = await store.expiredLeases();
        expect(expired!.id).toBe(id);
        const coordinator = await other();
        expect(await coordinator.releaseExpired(expired!, { to: 'retry', reason: 'reconciled: not executed' }, 'coord-1', reconciled)).toBe(true);
        expect(await row(id)).toMatchObject({ status: 'retry', leased_by: null, lease_until: null, lease_fence: 1, outcome: null });
        expect((await history(id)).at(-1)).toMatchObject({
          from_status: 'running',
          to_status: 'retry',
          actor: 'coordinator',
          worker: 'coord-1',
          attempt: 1,
          fence: 1,
          reason: 'reconciled: not executed',
        });
        expect((await store.readTx(id)).map((r) => [r.action, r.status, r.worker, r.attempt, r.epoch])).toEqual([
          ['reconcile', 'not_executed', 'coord-1', 1, 1],
        ]);

        const before = await store.progress();
        expect(await coordinator.releaseExpired(expired!, { to: 'retry', reason: 'again' }, 'coord-1', reconciled)).toBe(false);
        expect(await store.progress()).toBe(before);
        await expectHistoryMatchesRows();
      });

      it('sends it to review with outcome review when told to', async () => {
        const id = await add('a');
        await claimBy('w1');
        await store.expireLease(id);
        const [expired] = await store.expiredLeases();
        expect(await store.releaseExpired(expired!, { to: 'review', reason: 'outcome unknown' }, 'coord-1')).toBe(true);
        expect(await row(id)).toMatchObject({ status: 'review', outcome: 'review', review_reason: 'outcome unknown' });
        expect(await store.readTx(id)).toEqual([]);
      });

      it('writes neither when the holder renewed the lease meanwhile', async () => {
        const id = await add('a');
        const { lease } = await claimBy('w1');
        await store.expireLease(id);
        const [expired] = await store.expiredLeases();
        expect(await store.heartbeat(lease)).toMatchObject({ ok: true, status: 'running' });
        const before = await store.progress();
        expect(await store.releaseExpired(expired!, { to: 'retry', reason: 'too late' }, 'coord-1', reconciled)).toBe(false);
        expect(await row(id)).toMatchObject({ status: 'running', leased_by: 'w1', lease_fence: 1 });
        expect(await store.readTx(id)).toEqual([]);
        expect(await store.progress()).toBe(before);
      });

      // heartbeat-after-sweep: the holder's renewal stalled past the sweep, and nobody has claimed the job since.
      it("refuses and records a holder's renewal, and its complete, once the coordinator swept its lease, with nobody on the job", async () => {
        const id = await add('a');
        const { lease } = await claimBy('w1');
        await store.expireLease(id);
        const [expired] = await store.expiredLeases();
        expect(await store.releaseExpired(expired!, { to: 'retry', reason: 'lease expired' }, 'coord-1')).toBe(true);
        const swept = await row(id);
        const refused = { ok: false, code: 'QD_LEASE_LOST', current: { status: 'retry', leasedBy: null, fence: 1 } };
        expect(await store.heartbeat(lease)).toEqual(refused);
        expect(await store.complete(lease, DIGEST)).toEqual(refused);
        expect(await row(id)).toEqual(swept);
        expect((await history(id)).slice(-2).map((e) => [e.kind, e.from_status, e.to_status, e.worker, e.fence, e.reason])).toEqual([
          ['refused', 'retry', 'running', 'w1', 1, 'heartbeat refused: lease of w1 under fence 1 was lost (job is retry, not leased)'],
          ['refused', 'retry', 'done', 'w1', 1, 'complete refused: lease of w1 under fence 1 was lost (job is retry, not leased)'],
        ]);
        // The job waits for its next attempt, under a new epoch.
        expect((await claimBy('w1')).job).toMatchObject({ id, attempts: 2, lease_fence: 2 });
        await expectHistoryMatchesRows();
      });

      it('writes neither when a claim took it back first', async () => {
        const id = await add('a');
        await claimBy('w1');
        await store.expireLease(id);
        const [expired] = await store.expiredLeases();
        expect((await claimBy('w2')).job).toMatchObject({ id, lease_fence: 2 });
        expect(await store.releaseExpired(expired!, { to: 'retry', reason: 'too late' }, 'coord-1', reconciled)).toBe(false);
        expect(await row(id)).toMatchObject({ status: 'running', leased_by: 'w2', lease_fence: 2 });
        expect(await store.readTx(id)).toEqual([]);
      });
    });

    describe('compensation', () => {
      it('hands a failed saga to the coordinator, fenced like any lease, and ends it in review', async () => {
        const id = await add('a');
        const { lease } = await claimBy('w1');
        expect(await store.appendTx(lease, { ...ENTRY, status: 'success' })).toBe(true);
        expect(await store.beginCompensation(lease, 'step 2 failed for good', 'PolicyViolation: refused')).toEqual({
          ok: true,
          status: 'compensating',
        });
        expect(await row(id)).toMatchObject({
          status: 'compensating',
          leased_by: null,
          lease_until: null,
          last_error: 'PolicyViolation: refused',
          outcome: null,
        });
        expect((await history(id)).at(-1)).toMatchObject({
          from_status: 'running',
          to_status: 'compensating',
          actor: 'worker',
          reason: 'step 2 failed for good',
        });
        expect(await store.claim('w2')).toBeNull();

        const before = await store.progress();
        const first = await store.claimCompensation('coord-1');
        expect(first).toMatchObject({ id, status: 'compensating', leased_by: 'coord-1', lease_fence: 2, attempts: 1 });
        expect(await store.progress()).toBe(before);
        expect(await store.claimCompensation('coord-2')).toBeNull();
        const c1 = { jobId: id, workerId: 'coord-1', fence: 2 };
        expect(await store.heartbeat(c1)).toMatchObject({ ok: true, status: 'compensating' });
        expect(await store.appendTx(c1, { ...ENTRY, action: 'compensate', status: 'started' })).toBe(true);

        // The coordinator dies; another takes the saga over under the next epoch.
        await store.expireLease(id);
        const second = await (await other()).claimCompensation('coord-2');
        expect(second).toMatchObject({ id, leased_by: 'coord-2', lease_fence: 3 });
        const c2 = { jobId: id, workerId: 'coord-2', fence: 3 };
        expect(await store.finishCompensation(c1, 'compensated', 'stale')).toEqual({
          ok: false,
          code: 'QD_LEASE_LOST',
          current: { status: 'compensating', leasedBy: 'coord-2', fence: 3 },
        });
        expect((await history(id)).at(-1)).toMatchObject({
          kind: 'refused',
          from_status: 'compensating',
          to_status: 'review',
          actor: 'coordinator',
          worker: 'coord-1',
          fence: 2,
        });
        expect(await store.appendTx(c1, { ...ENTRY, action: 'compensate', status: 'success' })).toBe(false);

        expect(await store.finishCompensation(c2, 'compensated', 'every step undone')).toEqual({ ok: true, status: 'review' });
        expect(await row(id)).toMatchObject({
          status: 'review',
          outcome: 'compensated',
          review_reason: 'every step undone',
          leased_by: null,
          lease_until: null,
        });
        expect((await history(id)).at(-1)).toMatchObject({
          from_status: 'compensating',
          to_status: 'review',
          actor: 'coordinator',
          worker: 'coord-2',
          fence: 3,
        });
        expect(await store.claimCompensation('coord-1')).toBeNull();
        expect((await store.readTx(id)).map((r) => [r.action, r.epoch, r.worker])).toEqual([
          ['execute', 1, 'w1'],
          ['compensate', 2, 'coord-1'],
        ]);
        await expectHistoryMatchesRows();
      });

      it('gives a coordinator back the saga it held, under a new epoch', async () => {
        const id = await add('a');
        const { lease } = await claimBy('w1');
        await store.beginCompensation(lease, 'failed', 'e');
        expect((await store.claimCompensation('coord-1'))?.lease_fence).toBe(2);
        expect((await store.claimCompensation('coord-1'))?.lease_fence).toBe(3);
        expect(await store.finishCompensation({ jobId: id, workerId: 'coord-1', fence: 2 }, 'compensated', 'old epoch')).toMatchObject({ ok: false });
      });

      it('records incidents for a person', async () => {
        const a = await add('a');
        const b = await add('b');
        await store.recordIncident(a, 'refund', 'refund refused by the bank');
        await store.recordIncident(b, 'release', 'hold not found');
        const mine = await store.incidents(a);
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({
          job_id: String(a),
          step_id: 'refund',
          error: 'refund refused by the bank',
          status: 'manual_recovery_required',
        });
        expect(mine[0]!.at).toMatch(STAMP);
        expect((await store.incidents()).map((i) => i.job_id)).toEqual([String(a), String(b)]);
      });
    });

    describe('reads', () => {
      it('counts every status; progress moves with every history row and checkpoint, and only then', async () => {
        expect(await store.counts()).toEqual(Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])));
        const p0 = await store.progress();
        await add('a');
        await add('b');
        const p1 = await store.progress();
        expect(p1).not.toBe(p0);
        await store.jobs();
        await store.counts();
        await store.expiredLeases();
        expect(await store.progress()).toBe(p1);
        const { lease } = await claimBy('w1');
        const p2 = await store.progress();
        expect(p2).not.toBe(p1);
        await store.appendTx(lease, ENTRY);
        const p3 = await store.progress();
        expect(p3).not.toBe(p2);
        await store.heartbeat({ ...lease, fence: 99 });
        expect(await store.progress()).not.toBe(p3);
        expect(await store.counts()).toEqual({ pending: 1, running: 1, retry: 0, done: 0, review: 0, compensating: 0 });
      });

      it("rebuilds every job's status from its history, across a mixed run", async () => {
        const ids = [];
        for (let i = 0; i < 6; i++) ids.push(await add(`job-${i}`, 2));
        const second = await other();
        const a = await claimBy('w1');
        const b = await claimBy('w2', second);
        const c = await claimBy('w1');
        const d = await claimBy('w2', second);
        await store.complete(a.lease, DIGEST);
        await store.retry(b.lease, 'flaky');
        await store.review(c.lease, 'look');
        await store.beginCompensation(d.lease, 'failed', 'e');
        await store.expireLease(ids[4]!); // not held yet: nothing happens
        const e = await claimBy('w3');
        await store.expireLease(e.job.id);
        await claimBy('w4', second); // sweeps e back, then takes the oldest ready
        await store.heartbeat(e.lease); // refused
        const comp = await store.claimCompensation('coord');
        await store.finishCompensation({ jobId: comp!.id, workerId: 'coord', fence: comp!.lease_fence }, 'compensation_failed', 'refund refused');
        await store.requeueFromReview(c.job.id, 'carol', 'retry it');
        await expectHistoryMatchesRows();
        await expectHistoryMatchesRows(second);
      });
    });
  });
}
