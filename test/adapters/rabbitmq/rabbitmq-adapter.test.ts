import { afterEach, describe, expect, it } from 'vitest';
import { fitRabbitmq } from '../../../src/adapters/rabbitmq/fit.js';
import { prefixFor } from '../../../src/adapters/rabbitmq/names.js';
import type { DrillDemands } from '../../../src/port/adapter.js';
import { skipWithoutRabbitmq } from '../../helpers/brokers.js';
import { rabbitmqQueuesStartingWith } from './broker-queues.js';
import { freshRabbitmqQueue } from './fresh-queue.js';

/*
 * The rabbitmq adapter against the local broker, by hand (manual claims: each
 * on a channel of its own, which closing lets go, as a holder's death does).
 * What the record writes down of what RabbitMQ did, and what it must not
 * make up: a dead letter is review only where RabbitMQ put it there.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const history = (entries: Array<{ kind: string; from: string | null; to: string; actor: string; worker: string | null }>) =>
  entries.map((e) => `${e.kind === 'refused' ? 'refused ' : ''}${e.from ?? '(new)'}>${e.to}:${e.actor}:${e.worker ?? '-'}`);

describe.skipIf(skipWithoutRabbitmq('the rabbitmq adapter (test/adapters/rabbitmq)'))('rabbitmq: the adapter', () => {
  it('a job whose holders die on every attempt is dead-lettered by the quorum queue at its limit, and the record says so', async () => {
    const { queue } = await freshRabbitmqQueue('limit', [2], cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 2 });
    const first = await queue.manual!.claim('w1');
    expect(first).toMatchObject({ jobId, attempt: 1, epoch: 1 });
    await queue.takeover!.expireLease(jobId);
    const second = await queue.manual!.claim('w2');
    expect(second).toMatchObject({ jobId, attempt: 2, epoch: 2 });
    await queue.takeover!.expireLease(jobId);
    expect(await queue.manual!.claim('w3')).toBeNull();
    const snapshot = await queue.snapshot();
    expect(snapshot.jobs).toEqual([
      expect.objectContaining({
        id: jobId,
        status: 'review',
        attempts: 2,
        reviewReason: 'dead-lettered by RabbitMQ at its x-delivery-limit: w2 let it go on its last attempt (2 of 2)',
      }),
    ]);
    expect(history(snapshot.history)).toEqual([
      '(new)>pending:producer:-',
      'pending>running:worker:w1',
      'running>retry:coordinator:-',
      'retry>running:worker:w2',
      'running>review:coordinator:-',
    ]);
  });

  it('a job with a smaller budget than the queue’s limit is rejected by its consumer when delivered past it', async () => {
    const { queue } = await freshRabbitmqQueue('budget', [3], cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 1 });
    expect(await queue.manual!.claim('w1')).toMatchObject({ jobId, attempt: 1 });
    await queue.takeover!.expireLease(jobId);
    expect(await queue.manual!.claim('w2')).toBeNull();
    const { jobs } = await queue.snapshot();
    expect(jobs).toEqual([
      expect.objectContaining({
        status: 'review',
        attempts: 1,
        reviewReason: expect.stringMatching(
          /^given back by RabbitMQ when the channel of w1 closed on its last attempt \(1 of 1\); delivered again past its budget/,
        ),
      }),
    ]);
  });

  it('a failed last attempt is rejected to review; a person moves it back for one more attempt, and nothing is left in the dead-letter queue', async () => {
    const { queue } = await freshRabbitmqQueue('requeue', [2], cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 2 });
    expect(await queue.manual!.retry((await queue.manual!.claim('w1'))!, 'boom')).toEqual({ ok: true, status: 'retry' });
    expect(await queue.manual!.retry((await queue.manual!.claim('w2'))!, 'boom')).toEqual({ ok: true, status: 'review' });
    expect((await queue.snapshot()).jobs[0]).toMatchObject({
      status: 'review',
      reviewReason: expect.stringMatching(/^retries exhausted: its last attempt \(2 of 2\) failed/),
    });
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'fixed the cause')).toBe(true);
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'again')).toBe(false);
    const third = await queue.manual!.claim('w3');
    expect(third).toMatchObject({ jobId, attempt: 3, epoch: 3, maxAttempts: 3 });
    expect(await queue.manual!.complete(third!, 'c0ffee'.padEnd(64, '0'))).toEqual({ ok: true, status: 'done' });
    const snapshot = await queue.snapshot();
    expect(snapshot.jobs[0]).toMatchObject({ status: 'done', attempts: 3, outcome: 'done' });
    expect(history(snapshot.history).slice(-3)).toEqual(['review>pending:human:-', 'pending>running:worker:w3', 'running>done:worker:w3']);
    expect(await queue.manual!.claim('w4')).toBeNull();
  });

  it('a holder whose channel is gone is refused, and the refusal is in the history with the job’s attempt', async () => {
    const { queue } = await freshRabbitmqQueue('stale', [3], cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 3 });
    const stale = (await queue.manual!.claim('w1'))!;
    await queue.takeover!.expireLease(jobId);
    const current = (await queue.manual!.claim('w2'))!;
    const refused = await queue.manual!.complete(stale, 'c0ffee'.padEnd(64, '0'));
    expect(refused).toMatchObject({ ok: false, refused: expect.stringMatching(/^RabbitMQ did not take it: /) });
    expect(await queue.manual!.complete(current, 'c0ffee'.padEnd(64, '0'))).toEqual({ ok: true, status: 'done' });
    const { history: entries } = await queue.snapshot();
    const refusal = entries.find((e) => e.kind === 'refused');
    expect(refusal).toMatchObject({ worker: 'w1', epoch: 1, attempt: 2, from: 'running', to: 'done' });
  });

  it('publishes every enqueue of a key as another job: RabbitMQ dedupes nothing', async () => {
    const { queue } = await freshRabbitmqQueue('no-dedupe', [3], cleanup);
    const a = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 3 });
    const b = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 3 });
    expect([a.outcome, b.outcome]).toEqual(['created', 'created']);
    expect(a.jobId).not.toBe(b.jobId);
    expect((await queue.snapshot()).jobs.map((j) => j.key)).toEqual(['k1', 'k1']);
  });

  it('leaves no queue behind once torn down', async () => {
    const { locator } = await freshRabbitmqQueue('teardown', [3], cleanup);
    expect((await rabbitmqQueuesStartingWith(locator)).sort()).toEqual([`${locator}.dead`, `${locator}.work`]);
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
    expect(await rabbitmqQueuesStartingWith(locator)).toEqual([]);
  });
});

describe('rabbitmq: fit', () => {
  const demands: DrillDemands = {
    leaseMs: 3_000,
    skewMarginMs: 100,
    pollMs: 50,
    maxAttempts: [3, 5],
    retryDelay: { baseMs: 100, capMs: 1_000, jitterMs: 0 },
    coordinator: true,
    approval: false,
    tools: [],
    points: [],
    holderDies: true,
    queueOptions: {},
    timeoutMs: 20_000,
  };

  it('declares the delivery limit from the largest budget, and refuses the heartbeat point with its reason', () => {
    const fit = fitRabbitmq(demands);
    expect(fit).toMatchObject({
      ok: true,
      mapping: { 'x-queue-type': 'quorum', 'x-delivery-limit': expect.stringMatching(/^4 \(max_attempts 5; /), heartbeatSeconds: 1 },
    });
    expect(fitRabbitmq({ ...demands, points: ['heartbeat'] })).toEqual({ ok: false, reason: expect.stringMatching(/^RabbitMQ renews nothing/) });
    expect(fitRabbitmq({ ...demands, queueOptions: { queue_type: 'classic', heartbeat_s: 5 } })).toMatchObject({
      ok: true,
      mapping: { 'x-queue-type': 'classic', 'x-delivery-limit': expect.stringMatching(/^none/), heartbeatSeconds: 5 },
    });
  });

  it('names each drill’s queues after its run, readable and unique', () => {
    expect(prefixFor('crash-after-claim 2026-12-01T10 123 1')).toMatch(/^qd\.crash-after-claim-2026-12-01t10-123-1-[0-9a-f]{12}$/);
    expect(prefixFor('Run-1')).not.toBe(prefixFor('run_1'));
  });
});
