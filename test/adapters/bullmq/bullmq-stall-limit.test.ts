import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_STALLED_COUNT } from '../../../src/adapters/bullmq/fit.js';
import { attemptsBounded } from '../../../src/judge/invariants/attempts-bounded.js';
import { historyComplete } from '../../../src/judge/invariants/history-complete.js';
import { transitionsAllowed } from '../../../src/judge/invariants/transitions-allowed.js';
import type { QueueConnection } from '../../../src/port/adapter.js';
import type { Claim } from '../../../src/port/delivery.js';
import type { JobSnapshot, Transition } from '../../../src/port/snapshot.js';
import { skipWithoutRedis } from '../../helpers/redis.js';
import { cleanEvidence, judged } from '../../judge/invariants/evidence-builder.js';
import { freshBullmqQueue } from './fresh-queue.js';

/*
 * BullMQ's stall limit on a real Redis: a holder that never renews its lock
 * has the job taken back by the stalled checker; past maxStalledCount the
 * checker marks it, and the next start fails it at once (5.81: the start into
 * active, then the failure, no processor run). The history says so, a claim
 * and the queue's failure, and the judge's state machine accepts it.
 */

const LEASE_MS = 400;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function freshQueue(name: string): Promise<QueueConnection> {
  return freshBullmqQueue(name, { leaseMs: LEASE_MS, skewMarginMs: 50 }, cleanup);
}

/** Claims as `worker` once the stalled checker has put the job back (or null after 10 s): the claimer never renews. */
async function claimAfterStall(queue: QueueConnection, worker: string): Promise<Claim | null> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const claim = await queue.manual!.claim(worker);
    if (claim !== null || Date.now() > deadline) return claim;
    await sleep(50);
  }
}

/** Asks for the job until it is in review (each claim finds the marked job and BullMQ fails it), or gives up after 10 s. */
async function untilReview(queue: QueueConnection, jobId: string): Promise<JobSnapshot | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    expect(await queue.manual!.claim('w3')).toBeNull();
    const job = (await queue.snapshot({ history: false })).jobs.find((j) => j.id === jobId);
    if (job?.status === 'review' || Date.now() > deadline) return job;
    await sleep(50);
  }
}

const path = (events: readonly Transition[]) => events.map((e) => `${e.from ?? '(new)'}>${e.to}:${e.actor}`);

describe.skipIf(skipWithoutRedis('the BullMQ stall limit (test/adapters/bullmq/bullmq-stall-limit.test.ts)'))('bullmq: the stall limit', () => {
  it('shows the start into active and the failure by the queue, which the state machine allows', { timeout: 40_000 }, async () => {
    expect(MAX_STALLED_COUNT).toBe(1);
    const queue = await freshQueue('stall-limit');
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 3 });
    expect(await queue.manual!.claim('w1')).toMatchObject({ jobId, epoch: 1 });
    // The first stall is forgiven: back to wait.
    expect(await claimAfterStall(queue, 'w2')).toMatchObject({ jobId, epoch: 2 });
    // The second is over the limit: the checker marks the job, and the next start fails it before any processor.
    const job = await untilReview(queue, jobId);
    expect(job).toMatchObject({ status: 'review', attempts: 3, epoch: 3, reviewReason: 'job stalled more than allowable limit' });

    const { jobs, history } = await queue.snapshot();
    expect(path(history)).toEqual([
      '(new)>pending:producer',
      'pending>running:worker',
      'running>retry:coordinator',
      'retry>running:worker',
      'running>retry:coordinator',
      'retry>running:worker',
      'running>review:coordinator',
    ]);
    expect(history.map((e) => [e.attempt, e.epoch])).toEqual([
      [0, 0],
      [1, 1],
      [1, 1],
      [2, 2],
      [2, 2],
      [3, 3],
      [3, 3],
    ]);
    expect(history[5]?.reason).toMatch(/to be failed at once: job stalled more than allowable limit/);
    expect(history[6]?.reason).toMatch(/^job stalled more than allowable limit/);

    const evidence = { ...cleanEvidence(), jobs, events: history, txLog: [], effects: [], accepted: [] };
    for (const invariant of [transitionsAllowed, attemptsBounded, historyComplete]) {
      expect(judged(invariant, evidence), invariant.id).toMatchObject({ status: 'held', evidence: [] });
    }
  });
});
