import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/harness/wait-for.js';
import { ManualClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import type { QueueConnection } from '../../src/port/adapter.js';
import type { Delivery } from '../../src/port/delivery.js';
import { referenceConnection } from '../../src/reference/reference-connection.js';
import { SqliteLeaseStore } from '../../src/reference/sqlite/sqlite-lease-store.js';
import { SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The reference queue through the port, on a real SQLite file with a clock the
 * test moves: what every role sees of it (snapshots in the port's words, the
 * worker loop, the takeover hooks).
 */

const DIGEST = 'ab'.repeat(32);
let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function open(): { queue: QueueConnection; clock: ManualClock } {
  const run = tempRunDir('reference-connection');
  const clock = new ManualClock();
  const store = new SqliteLeaseStore(
    SqliteQueue.open(join(run.dir, 'queue.db'), {
      clock,
      random: seededRandom(1),
      leaseMs: 1_000,
      skewMarginMs: 100,
      retryDelay: { baseMs: 0, capMs: 0, jitterMs: 0 },
    }),
  );
  const queue = referenceConnection(store, { leaseMs: 1_000 });
  cleanup.push(
    () => run.remove(),
    () => queue.close(),
  );
  return { queue, clock };
}

describe('referenceConnection', () => {
  it('answers enqueue as created or deduplicated, with text ids', async () => {
    const { queue } = open();
    const request = { key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 2 };
    expect(await queue.enqueue(request)).toEqual({ outcome: 'created', jobId: '1' });
    expect(await queue.enqueue(request)).toEqual({ outcome: 'deduplicated', jobId: '1' });
  });

  it('hosts a worker: each delivery carries its epoch and a fenced saga log, and its settlement is the one write', async () => {
    const { queue } = open();
    for (const key of ['a', 'b']) await queue.enqueue({ key, action: 'sleep', payload: '{}', maxAttempts: 2 });
    const seen: Delivery[] = [];
    const stop = new AbortController();
    const { processed } = await queue.work(
      async (delivery) => {
        seen.push(delivery);
        expect(await delivery.saga.append({ stepId: 's', action: 'execute', key: `${delivery.key}:s`, status: 'started' })).toBe(true);
        return delivery.key === 'a' ? { kind: 'done', digest: DIGEST } : { kind: 'review', reason: 'a person must look', awaitingApproval: true };
      },
      { workerId: 'w1', stop: stop.signal, pollMs: 5, exitWhenDrained: true, maxJobs: 0, maxAttemptMs: 10_000, log: () => undefined },
    );
    expect(processed).toBe(2);
    expect(seen.map((d) => [d.jobId, d.key, d.attempt, d.epoch, d.holder, d.token])).toEqual([
      ['1', 'a', 1, 1, 'w1', null],
      ['2', 'b', 1, 1, 'w1', null],
    ]);
    const { jobs, history } = await queue.snapshot();
    expect(jobs.map((j) => [j.id, j.status, j.outcome, j.epoch, j.holder])).toEqual([
      ['1', 'done', 'done', 1, null],
      ['2', 'review', 'awaiting_approval', 1, null],
    ]);
    expect(history.filter((e) => e.jobId === '1').map((e) => `${e.from ?? '(new)'}>${e.to} epoch ${e.epoch}`)).toEqual([
      '(new)>pending epoch 0',
      'pending>running epoch 1',
      'running>done epoch 1',
    ]);
    expect((await queue.saga.rows()).map((r) => [r.job_id, r.epoch, r.worker])).toEqual([
      ['1', 1, 'w1'],
      ['2', 1, 'w1'],
    ]);
  });

  it("tells each lease the queue grants, as stored: the claim's end, then each applied renewal's", async () => {
    const { queue, clock } = open();
    await queue.enqueue({ key: 'a', action: 'sleep', payload: '{}', maxAttempts: 2 });
    const leases: Array<[string, number, string, string]> = [];
    const stop = new AbortController();
    await queue.work(
      async () => {
        clock.advance(200);
        // Until the loop's renewal (every lease/3 of real time) has run once.
        await waitFor(() => leases.some(([, , , by]) => by === 'renewal') || undefined, {
          timeoutMs: 5_000,
          intervalMs: 5,
          what: "the loop's first renewal",
        });
        return { kind: 'done', digest: DIGEST };
      },
      {
        workerId: 'w1',
        stop: stop.signal,
        pollMs: 5,
        exitWhenDrained: true,
        maxJobs: 0,
        maxAttemptMs: 10_000,
        log: () => undefined,
        onLease: (delivery, leaseUntil, by) => leases.push([delivery.jobId, delivery.epoch, leaseUntil, by]),
      },
    );
    const start = Date.UTC(2026, 0, 1);
    expect(leases).toEqual([
      ['1', 1, new Date(start + 1_000).toISOString(), 'claim'],
      ['1', 1, new Date(start + 200 + 1_000).toISOString(), 'renewal'],
    ]);
  });

  it('hears its stop between two jobs of a backlog, though nothing in a job waits for anything (a SIGTERM is heard so)', async () => {
    const { queue } = open();
    for (let n = 0; n < 200; n++) await queue.enqueue({ key: `k${n}`, action: 'sleep', payload: '{}', maxAttempts: 2 });
    const stop = new AbortController();
    // A timer, as a signal's handler is: it runs only when the worker's loop gives the event loop a turn.
    setTimeout(() => stop.abort(), 0);
    const { processed } = await queue.work(async () => ({ kind: 'done', digest: DIGEST }), {
      workerId: 'w1',
      stop: stop.signal,
      pollMs: 5,
      exitWhenDrained: true,
      maxJobs: 0,
      maxAttemptMs: 10_000,
      log: () => undefined,
    });
    expect(processed).toBeGreaterThan(0);
    expect(processed).toBeLessThan(200);
    expect((await queue.snapshot()).jobs.filter((j) => j.status === 'pending')).toHaveLength(200 - processed);
  });

  it("takeover: expired leases are found and released with a checkpoint, or all at once by the queue's upkeep", async () => {
    const { queue, clock } = open();
    for (const key of ['a', 'b']) await queue.enqueue({ key, action: 'sleep', payload: '{}', maxAttempts: 2 });
    const a = (await queue.manual!.claim('w1'))!;
    const b = (await queue.manual!.claim('w2'))!;
    expect(await queue.takeover!.expiredLeases()).toEqual([]);
    clock.advance(1_101 + 1);
    expect((await queue.takeover!.expiredLeases()).map((c) => [c.jobId, c.holder, c.epoch])).toEqual([
      [a.jobId, 'w1', 1],
      [b.jobId, 'w2', 1],
    ]);
    const checkpoint = { stepId: 's', action: 'reconcile' as const, key: 'a:s', status: 'not_executed' as const };
    expect(await queue.takeover!.releaseExpired(a, { to: 'retry', reason: 'lease expired' }, 'coord-1', checkpoint)).toBe(true);
    expect(await queue.takeover!.releaseExpired(a, { to: 'retry', reason: 'again' }, 'coord-1')).toBe(false);
    expect(await queue.saga.rows(a.jobId)).toEqual([expect.objectContaining({ action: 'reconcile', worker: 'coord-1', epoch: 1 })]);
    expect(await queue.takeover!.maintain()).toBe(1);
    expect(await queue.takeover!.maintain()).toBe(0);
    const { jobs } = await queue.snapshot();
    expect(jobs.map((j) => [j.id, j.status, j.holder])).toEqual([
      [a.jobId, 'retry', null],
      [b.jobId, 'retry', null],
    ]);
  });

  it("a stale holder's write comes back refused, saying who holds the job now", async () => {
    const { queue } = open();
    await queue.enqueue({ key: 'a', action: 'sleep', payload: '{}', maxAttempts: 3 });
    const stale = (await queue.manual!.claim('w1'))!;
    await queue.takeover!.expireLease(stale.jobId);
    await queue.manual!.claim('w2');
    expect(await queue.manual!.complete(stale, DIGEST)).toEqual({ ok: false, refused: 'lease lost (job is running, held by w2 under epoch 2)' });
  });
});
