import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TxEntry, TxRow } from '../../../src/port/checkpoint.js';
import type { Claim, WriteResult } from '../../../src/port/delivery.js';
import { stepStates } from '../../../src/saga/tx-log.js';
import { skipWithoutPg } from '../../helpers/postgres.js';
import { freshPgBossQueue } from './fresh-queue.js';

/*
 * A person's approval on pg-boss reaches the very next delivery of the job:
 * a worker that fetches it the instant pg-boss's retry() has committed (the
 * hook below fetches inside the retry, right after pg-boss's update) opens its
 * saga log as the work loop does and finds the step approved, under its own
 * epoch, with the attempts review took away already given back. Written after
 * the retry, the approval was refused by the saga file's fence (the fetcher
 * had shown a later epoch) and the job went back to review, approval after
 * approval.
 */

// boss.retry() is a closure over pg-boss's Manager.prototype.retry (index.js promotes the manager's functions onto each
// instance when it is made), so the hook goes on the prototype, before the person's instance is made.
const Manager = createRequire(import.meta.url)('pg-boss/src/manager.js') as { prototype: { retry(...args: unknown[]): Promise<unknown> } };

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const APPROVAL: TxEntry = { stepId: 'charge', action: 'approve', key: 'k1:charge', status: 'success', detail: 'approved by alice' };

/** Runs `fetchNow` right after each retry() pg-boss completes: a worker as fast as a worker can be. */
function fetchRightAfterRetry(fetchNow: () => Promise<void>): void {
  const retry = Manager.prototype.retry;
  vi.spyOn(Manager.prototype, 'retry').mockImplementation(async function (this: unknown, ...args: unknown[]) {
    const result = await retry.apply(this, args);
    await fetchNow();
    return result;
  });
}

describe.skipIf(skipWithoutPg('the pg-boss approval requeue (test/adapters/pg-boss/approval.test.ts)'))('pg-boss: a person’s approval', () => {
  it('is in the saga log of a worker that fetches the job the instant it is requeued, with its attempts given back', async () => {
    const queue = await freshPgBossQueue('approval', 30_000, cleanup);
    const { jobId } = await queue.enqueue({ key: 'k1', action: 'plan', payload: '{}', maxAttempts: 3 });
    const first = await queue.manual!.claim('w1');
    expect(first).toMatchObject({ jobId, attempt: 1, epoch: 1 });
    const firstLog = await queue.saga.logFor(first!);
    expect(await firstLog.append({ stepId: 'charge', action: 'prepare', key: 'k1:charge', status: 'success' })).toBe(true);
    expect(await queue.manual!.review(first!, 'approval required before step charge')).toEqual({ ok: true, status: 'review' });

    let next: Claim | null = null;
    let seen: TxRow[] = [];
    let failed: WriteResult | null = null;
    fetchRightAfterRetry(async () => {
      next = await queue.manual!.claim('w2');
      if (!next) return;
      // As the work loop does: open the log under the claim (showing its epoch), then read it.
      seen = await (await queue.saga.logFor(next)).rows();
      // And fail at once: attempt 2 of 3, so another attempt, not review, if the budget was back before the fetch.
      failed = await queue.manual!.retry(next, 'transient');
    });
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'approved step charge', APPROVAL)).toBe(true);

    expect(next).toMatchObject({ jobId, attempt: 2, epoch: 2, holder: 'w2' });
    expect(stepStates(seen).get('charge')).toMatchObject({ prepared: true, approvedBy: 'human:alice' });
    const rows = await queue.saga.rows(jobId);
    expect(rows.map((r) => `${r.action}:${r.worker}:${r.epoch}`)).toEqual(['prepare:w1:1', 'approve:human:alice:2', 'requeue:human:alice:2']);
    expect(failed).toEqual({ ok: true, status: 'retry' });
  });

  it('writes nothing and answers false for a job that is not in review', async () => {
    const queue = await freshPgBossQueue('not-review', 30_000, cleanup);
    const { jobId } = await queue.enqueue({ key: 'k2', action: 'plan', payload: '{}', maxAttempts: 3 });
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'approved step charge', APPROVAL)).toBe(false);
    expect(await queue.saga.rows(jobId)).toEqual([]);
  });
});
