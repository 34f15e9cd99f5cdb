import { afterEach, describe, expect, it } from 'vitest';
import { StoreBusyError } from '../../src/reference/sqlite/busy.js';
import { type Claimed, SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import type { Db } from '../../src/reference/sqlite/store.js';
import { ClaimNoTransactionQueue } from '../../src/variants/claim-no-transaction/claim-no-transaction-queue.js';
import { DIGEST, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

// The claim's update, in the reference's SQL and the variant's alike.
const TAKE = /SET status = 'running'/;

const CASES = [
  { name: 'reference', make: (db: Db, f: StoreFixture) => new SqliteQueue(db, f.options) },
  { name: 'claim-no-transaction', make: (db: Db, f: StoreFixture) => new ClaimNoTransactionQueue(db, f.options) },
] as const;

/**
 * w1 claims the one job; in the gap between its look-up and its update (just
 * before SQLite runs the update), w2, on another connection, claims too.
 */
function race(name: (typeof CASES)[number]['name']): {
  w1: Claimed | null;
  w2: Claimed | null | Error;
  w1Queue: SqliteQueue;
  w2Queue: SqliteQueue;
  jobId: number;
} {
  const entry = CASES.find((c) => c.name === name)!;
  // In one thread, waiting for w1's lock could only run out of time: a short budget says so at once.
  const w2Queue = fx.open(name, { busyWait: { policy: { budgetMs: 20 } } });
  const jobId = fx.add(w2Queue);
  let w2: Claimed | null | Error | undefined;
  const db = fx.traced((sql) => {
    if (w2 !== undefined || !TAKE.test(sql)) return;
    try {
      w2 = w2Queue.claim('w2');
    } catch (error) {
      w2 = error as Error;
    }
  });
  const w1Queue = entry.make(db, fx);
  const w1 = w1Queue.claim('w1');
  if (w2 === undefined) throw new Error('the claim never reached its update');
  return { w1, w2, w1Queue, w2Queue, jobId };
}

describe('claim-no-transaction', () => {
  it("lets a second worker claim the job between the first one's look-up and its update: both win", () => {
    fx = storeFixture('claim-race');
    const { w1, w2, w1Queue, jobId } = race('claim-no-transaction');
    expect(w2).not.toBeInstanceOf(Error);
    expect(w1?.job.id).toBe(jobId);
    expect((w2 as Claimed | null)?.job.id).toBe(jobId);
    // Both were told they won; the history shows two claims from pending, the second while the first was live.
    expect(fx.moves(w1Queue, jobId)).toEqual(['(new)>pending by producer (0)', 'pending>running by w2 (1)', 'pending>running by w1 (2)']);
    expect(w1Queue.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w1', attempts: 2, lease_fence: 2 });
    // w2 goes on working on a job it no longer holds; its write is only refused because the writes are still fenced.
    expect(w1Queue.complete((w2 as Claimed).lease, DIGEST)).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
  });

  it('reference: the look-up and the update are one immediate transaction, so the second claim cannot get in between', () => {
    fx = storeFixture('claim-race-ref');
    const { w1, w2, w2Queue, jobId } = race('reference');
    expect(w1?.job.id).toBe(jobId);
    expect(w2).toBeInstanceOf(StoreBusyError);
    expect((w2 as StoreBusyError).cause).toMatchObject({ code: 'SQLITE_BUSY' });
    // Once w1's claim has committed, w2 finds nothing left to claim.
    expect(w2Queue.claim('w2')).toBeNull();
    expect(fx.moves(w2Queue, jobId)).toEqual(['(new)>pending by producer (0)', 'pending>running by w1 (1)']);
  });

  it('works for one worker: the mistake shows only under concurrency', () => {
    fx = storeFixture('claim-alone');
    const queue = fx.open('claim-no-transaction');
    const first = fx.add(queue, 'a');
    const second = fx.add(queue, 'b');
    expect(fx.claimBy(queue, 'w1').job.id).toBe(first);
    expect(fx.claimBy(queue, 'w1').job.id).toBe(second);
    expect(queue.claim('w1')).toBeNull();
  });
});
