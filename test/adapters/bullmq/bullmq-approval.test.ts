import { Job } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { QueueConnection } from '../../../src/port/adapter.js';
import type { TxEntry, TxRow } from '../../../src/port/checkpoint.js';
import type { Claim } from '../../../src/port/delivery.js';
import { stepStates } from '../../../src/saga/tx-log.js';
import { skipWithoutRedis } from '../../helpers/redis.js';
import { freshBullmqQueue } from './fresh-queue.js';

/*
 * A person's approval on BullMQ reaches the very next delivery of the job:
 * a worker that claims it the instant Job.retry() has put it back in wait
 * (the hook below claims inside the retry, right after BullMQ's move) opens
 * its saga log as the work loop does and finds the step approved, under its
 * own epoch. Written after the move, the approval was refused by the saga
 * file's fence (the claimer had shown a later epoch) and the job went back to
 * review, approval after approval.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function freshQueue(name: string): Promise<QueueConnection> {
  return freshBullmqQueue(name, { leaseMs: 30_000, skewMarginMs: 1_000 }, cleanup);
}

const APPROVAL: TxEntry = { stepId: 'charge', action: 'approve', key: 'k1:charge', status: 'success', detail: 'approved by alice' };

/** Runs `claimNow` right after each Job.retry() BullMQ completes: a worker as fast as a worker can be. */
function claimRightAfterRetry(claimNow: () => Promise<void>): void {
  const retry = Job.prototype.retry;
  vi.spyOn(Job.prototype, 'retry').mockImplementation(async function (this: Job, ...args: Parameters<Job['retry']>) {
    await retry.apply(this, args);
    await claimNow();
  });
}

describe.skipIf(skipWithoutRedis('the BullMQ approval requeue (test/adapters/bullmq/bullmq-approval.test.ts)'))('bullmq: a person’s approval', () => {
  it('is in the saga log of a worker that claims the job the instant it is requeued, under that worker’s epoch', async () => {
    const queue = await freshQueue('approval');
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 3 });
    const first = await queue.manual!.claim('w1');
    expect(first).toMatchObject({ jobId, attempt: 1, epoch: 1 });
    const firstLog = await queue.saga.logFor(first!);
    expect(await firstLog.append({ stepId: 'charge', action: 'prepare', key: 'k1:charge', status: 'success' })).toBe(true);
    expect(await queue.manual!.review(first!, 'approval required before step charge')).toEqual({ ok: true, status: 'review' });

    let next: Claim | null = null;
    let seen: TxRow[] = [];
    claimRightAfterRetry(async () => {
      next = await queue.manual!.claim('w2');
      // As the work loop does: open the log under the claim (showing its epoch), then read it.
      if (next) seen = await (await queue.saga.logFor(next)).rows();
    });
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'approved step charge', APPROVAL)).toBe(true);

    expect(next).toMatchObject({ jobId, attempt: 2, epoch: 2, holder: 'w2' });
    expect(stepStates(seen).get('charge')).toMatchObject({ prepared: true, approvedBy: 'human:alice' });
    const rows = await queue.saga.rows(jobId);
    expect(rows.map((r) => `${r.action}:${r.worker}:${r.epoch}`)).toEqual(['prepare:w1:1', 'approve:human:alice:2', 'requeue:human:alice:2']);
    const { history } = await queue.snapshot();
    expect(history.map((e) => `${e.from ?? '(new)'}>${e.to}:${e.actor}`)).toEqual([
      '(new)>pending:producer',
      'pending>running:worker',
      'running>review:worker',
      'review>pending:human',
      'pending>running:worker',
    ]);
  });

  it('writes nothing and answers false for a job that is not in review', async () => {
    const queue = await freshQueue('not-review');
    const { jobId } = await queue.enqueue({ key: 'k2', action: 'plan', payload: '{}', maxAttempts: 3 });
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'approved step charge', APPROVAL)).toBe(false);
    expect(await queue.saga.rows(jobId)).toEqual([]);
  });
});
