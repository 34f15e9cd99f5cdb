import { afterEach, describe, expect, it } from 'vitest';
import { CONTRACT_DIGEST } from '../../../src/contract/check.js';
import { waitFor } from '../../../src/harness/wait-for.js';
import type { TxEntry } from '../../../src/port/checkpoint.js';
import { skipWithoutNats } from '../../helpers/brokers.js';
import { freshNatsQueue, streamNames } from './fresh-queue.js';

/*
 * The nats-jetstream adapter against the local NATS server, through the port:
 * each test on a stream of its own, removed afterwards. What JetStream does
 * here is shown with the library alone in test/probes/nats-jetstream.probe.test.ts;
 * these show the adapter records it as it happened.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const transitions = (history: Array<{ from: string | null; to: string; actor: string; worker: string | null }>) =>
  history.map((e) => `${e.from ?? '(new)'}>${e.to}:${e.actor}:${e.worker ?? '-'}`);

describe.skipIf(skipWithoutNats('the nats-jetstream adapter (test/adapters/nats-jetstream)'))('nats-jetstream: the adapter', () => {
  it('provisions a stream of its own and leaves none after teardown', async () => {
    const { provisioned } = await freshNatsQueue('provision', cleanup);
    expect(provisioned.locator).toMatch(/^QD_test_nats_provision_\d+_[0-9a-f]{12}$/);
    expect(await streamNames()).toContain(provisioned.locator);
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
    expect(await streamNames()).not.toContain(provisioned.locator);
  });

  it('dedupes a key within the duplicate window, and makes a second job of it after the window', async () => {
    const { queue } = await freshNatsQueue('dedupe', cleanup, { options: { duplicate_window_ms: 400 } });
    const request = { key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 3 };
    const first = await queue.enqueue(request);
    expect(first.outcome).toBe('created');
    expect(await queue.enqueue(request)).toEqual({ outcome: 'deduplicated', jobId: first.jobId });
    // Enqueued again until the window has passed: each try within it is answered deduplicated and makes nothing.
    const after = await waitFor(
      async () => {
        const answer = await queue.enqueue(request);
        return answer.outcome === 'created' ? answer : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the key to make a job again once its duplicate window passed' },
    );
    expect(after.outcome).toBe('created');
    expect(after.jobId).not.toBe(first.jobId);
    const { jobs } = await queue.snapshot();
    expect(jobs.filter((j) => j.key === 'k1').map((j) => j.id)).toEqual([first.jobId, after.jobId]);
  });

  it('records a delivery as its holder’s claim, with JetStream’s delivery count as attempt and epoch', async () => {
    const { queue } = await freshNatsQueue('delivery', cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{"a":1}', maxAttempts: 3 });
    const before = Date.now();
    const claim = await queue.manual!.claim('w1');
    expect(claim).toMatchObject({ jobId, key: 'k1', action: 'sleep', payload: '{"a":1}', attempt: 1, epoch: 1, holder: 'w1', maxAttempts: 3 });
    expect(claim!.token).toMatch(/^\$JS\.ACK\./);
    const job = (await queue.snapshot()).jobs.find((j) => j.id === jobId)!;
    expect(job).toMatchObject({ status: 'running', holder: 'w1', attempts: 1, epoch: 1 });
    expect(Date.parse(job.leaseUntil!)).toBeGreaterThanOrEqual(before + 300);
    expect(await queue.manual!.claim('w2')).toBeNull();
    expect(await queue.manual!.complete(claim!, CONTRACT_DIGEST)).toEqual({ ok: true, status: 'done' });
    const { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'done', outcome: 'done', resultDigest: CONTRACT_DIGEST, holder: null });
    expect(transitions(history)).toEqual(['(new)>pending:producer:-', 'pending>running:worker:w1', 'running>done:worker:w1']);
  });

  it('records a stale holder’s ack, which JetStream accepts after redelivering the job, as that holder’s done', async () => {
    const { queue } = await freshNatsQueue('stale', cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 3 });
    const stale = (await queue.manual!.claim('w1'))!;
    await queue.takeover!.expireLease(jobId);
    const current = (await queue.manual!.claim('w2'))!;
    expect(current).toMatchObject({ jobId, attempt: 2, epoch: 2, holder: 'w2' });
    expect(await queue.manual!.complete(stale, CONTRACT_DIGEST)).toEqual({ ok: true, status: 'done' });
    const { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'done', epoch: 2 });
    expect(transitions(history)).toEqual([
      '(new)>pending:producer:-',
      'pending>running:worker:w1',
      'running>retry:coordinator:-',
      'retry>running:worker:w2',
      'running>done:worker:w1',
    ]);
    // Written by w1, at the job's numbering (the record's never goes back); the reason names w1's delivery.
    expect(history.at(-1)).toMatchObject({
      worker: 'w1',
      epoch: 2,
      attempt: 2,
      reason: expect.stringMatching(/epoch 1, after JetStream had redelivered the job/),
    });
    // The message is gone: the current holder has nothing left to ack, and nobody gets the job again.
    expect(await queue.manual!.complete(current, CONTRACT_DIGEST)).toEqual({ ok: true, status: 'done' });
    await queue.takeover!.expireLease(jobId);
    expect(await queue.manual!.claim('w3')).toBeNull();
  });

  it('records a retry as a nak with its delay, and the next delivery after it', async () => {
    const { queue } = await freshNatsQueue('retry', cleanup, { retryDelay: { baseMs: 200, capMs: 200, jitterMs: 0 } });
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 2 });
    const first = (await queue.manual!.claim('w1'))!;
    const nakedAt = Date.now();
    expect(await queue.manual!.retry(first, 'boom')).toEqual({ ok: true, status: 'retry' });
    expect(await queue.manual!.claim('w2')).toBeNull();
    let second = null;
    while (second === null && Date.now() - nakedAt < 3_000) second = await queue.manual!.claim('w2');
    expect(Date.now() - nakedAt).toBeGreaterThanOrEqual(190);
    expect(second).toMatchObject({ jobId, attempt: 2, epoch: 2 });
    // The last attempt's retry is a +TERM: review, retries exhausted.
    expect(await queue.manual!.retry(second!, 'boom again')).toEqual({ ok: true, status: 'review' });
    const { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'review', lastError: 'boom again', reviewReason: expect.stringMatching(/^retries exhausted/) });
    expect(history.find((e) => e.to === 'retry')).toMatchObject({ actor: 'worker', worker: 'w1', retryDelayMs: 200 });
  });

  it('sends a job whose last delivery’s ack wait passed to review: JetStream will not deliver it again', async () => {
    const { queue } = await freshNatsQueue('exhausted', cleanup, { maxAttempts: [1] });
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 1 });
    expect(await queue.manual!.claim('w1')).toMatchObject({ jobId, attempt: 1 });
    await queue.takeover!.expireLease(jobId);
    expect(await queue.manual!.claim('w2')).toBeNull();
    // Past the lease by the skew margin and a pull's wait, the sweep (the queue's upkeep) finds it.
    const swept = await waitFor(async () => (await queue.takeover!.maintain()) || undefined, {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "the sweep to find the exhausted job past its lease's end",
    });
    expect(swept).toBe(1);
    const { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'review', attempts: 1, outcome: 'review', reviewReason: expect.stringMatching(/^retries exhausted/) });
    expect(transitions(history).at(-1)).toBe('running>review:coordinator:-');
  });

  it('terminates unrun a delivery past its job’s own budget (max_deliver is the drill’s largest), and sends the job to review', async () => {
    const { queue } = await freshNatsQueue('budget', cleanup, { maxAttempts: [1, 3] });
    const { jobId } = await queue.enqueue({ key: 'small', action: 'sleep', payload: '{}', maxAttempts: 1 });
    await queue.manual!.claim('w1');
    await queue.takeover!.expireLease(jobId);
    expect(await queue.manual!.claim('w2')).toBeNull();
    const { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({
      status: 'review',
      attempts: 1,
      reviewReason: expect.stringMatching(/^retries exhausted: .*terminated it unrun/),
    });
    expect(transitions(history)).toEqual(['(new)>pending:producer:-', 'pending>running:worker:w1', 'running>review:coordinator:-']);
  });

  it('requeues a job from review as a new message of the same job, one more attempt allowed, its approval in the saga log first', async () => {
    const { queue } = await freshNatsQueue('requeue', cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 1 });
    const first = (await queue.manual!.claim('w1'))!;
    expect(await queue.manual!.review(first, 'approval required before step charge')).toEqual({ ok: true, status: 'review' });
    expect(await queue.manual!.claim('w1')).toBeNull();
    const approval: TxEntry = { stepId: 'charge', action: 'approve', key: 'k1:charge', status: 'success', detail: 'approved by alice' };
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'approved step charge', approval)).toBe(true);
    expect(await queue.human!.requeueFromReview(jobId, 'bob', 'again', approval)).toBe(false);
    const next = await queue.manual!.claim('w2');
    expect(next).toMatchObject({ jobId, attempt: 2, epoch: 2, maxAttempts: 2, holder: 'w2' });
    const rows = await (await queue.saga.logFor(next!)).rows();
    expect(rows.map((r) => `${r.action}:${r.worker}:${r.epoch}`)).toEqual(['approve:human:alice:2', 'requeue:human:alice:2']);
    expect(await queue.manual!.complete(next!, CONTRACT_DIGEST)).toEqual({ ok: true, status: 'done' });
    const { jobs, history } = await queue.snapshot();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ status: 'done', attempts: 2 });
    expect(transitions(history)).toEqual([
      '(new)>pending:producer:-',
      'pending>running:worker:w1',
      'running>review:worker:w1',
      'review>pending:human:-',
      'pending>running:worker:w2',
      'running>done:worker:w2',
    ]);
  });
});
