import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import { waitForWork } from '../../src/port/wait-for-work.js';
import type { WakeSignals } from '../../src/port/wake-signals.js';
import { SqliteLeaseStore } from '../../src/reference/sqlite/sqlite-lease-store.js';
import { SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { openStore } from '../../src/reference/sqlite/store.js';
import { SketchLiteralQueue } from '../../src/variants/sketch-literal/sketch-literal-queue.js';
import { tempRunDir } from '../helpers/run-dir.js';

// Waits long enough that only a wake signal (not the bound) can end them before the test's own timeout.
const NEVER = 60_000;
const POLL_MS = 5;

describe('waitForWork: an idle worker sleeps until the store changes or a job falls due', () => {
  let run: ReturnType<typeof tempRunDir>;
  let open: SqliteQueue[];
  const queueOn = (options: { leaseMs?: number; clock?: { now(): number } } = {}) => {
    const queue = new SqliteQueue(openStore(`${run.dir}/queue.db`), {
      clock: options.clock ?? systemClock(),
      random: seededRandom(1),
      leaseMs: options.leaseMs ?? 30_000,
      skewMarginMs: 50,
    });
    open.push(queue);
    return queue;
  };

  beforeEach(() => {
    run = tempRunDir('wait-for-work');
    open = [];
  });
  afterEach(() => {
    for (const queue of open) queue.close();
    run.remove();
  });

  it("wakes when another connection commits (SQLite's data_version), not on its own bound", async () => {
    const worker = new SqliteLeaseStore(queueOn());
    const producer = queueOn();
    const signals = worker.wakeSignals;
    expect(signals).toBeTruthy();
    const before = signals?.changeCount();
    expect(await worker.claim('w1')).toBeNull();
    let woke = false;
    const waiting = waitForWork(signals, before, POLL_MS, new AbortController().signal, NEVER).then(() => {
      woke = true;
    });
    // Idle until then: several polls pass with nothing committed.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(woke).toBe(false);
    producer.enqueue({ key: 'k1', action: 'noop', payload: {} });
    await waiting;
    expect((await worker.claim('w1'))?.id).toBe(1);
  });

  it('a commit racing the empty claim still wakes it: the count is read before the claim', async () => {
    const worker = new SqliteLeaseStore(queueOn());
    const before = worker.wakeSignals?.changeCount();
    queueOn().enqueue({ key: 'k1', action: 'noop', payload: {} });
    await waitForWork(worker.wakeSignals, before, POLL_MS, new AbortController().signal, NEVER);
  });

  it('wakes when a lease ends (plus the skew margin) with nothing written, as the sweep would take the job back then', async () => {
    const holder = queueOn({ leaseMs: 200 });
    holder.enqueue({ key: 'k1', action: 'noop', payload: {} });
    expect(holder.claim('w1')).not.toBeNull();
    const worker = new SqliteLeaseStore(queueOn());
    // Taken before `due` is read: the wake is at the lease's end plus the margin, whenever the wait begins (a loaded
    // machine once took more than a poll between reading `due` and starting the clock, and the bound failed by 1 ms).
    const started = Date.now();
    const due = await worker.wakeSignals?.msUntilDue();
    expect(due).toBeGreaterThan(0);
    expect(due).toBeLessThanOrEqual(251);
    const before = worker.wakeSignals?.changeCount();
    await waitForWork(worker.wakeSignals, before, POLL_MS, new AbortController().signal, NEVER);
    expect(Date.now() - started).toBeGreaterThanOrEqual((due ?? 0) - POLL_MS);
    // Woken when the next claim's sweep can take the job back.
    expect((await worker.expiredLeases()).map((row) => row.id)).toEqual([1]);
  });

  it('says how long until a job is due: none for an empty queue, 0 for one ready now, a retry at its delay', async () => {
    let now = Date.parse('2026-12-02T00:00:00.000Z');
    const queue = queueOn({ clock: { now: () => now } });
    const signals = queue.wakeSignals;
    expect(signals?.msUntilDue()).toBeNull();
    queue.enqueue({ key: 'k1', action: 'noop', payload: {}, maxAttempts: 3 });
    expect(signals?.msUntilDue()).toBe(0);
    const claimed = queue.claim('w1');
    expect(signals?.msUntilDue()).toBe(30_000 + 50 + 1);
    if (!claimed) throw new Error('no claim');
    queue.retry(claimed.lease, 'boom');
    const due = signals?.msUntilDue() ?? -1;
    expect(due).toBeGreaterThan(0);
    now += due;
    expect(signals?.msUntilDue()).toBe(0);
    expect(queue.claim('w1')?.job.id).toBe(1);
  });

  it("a variant whose claim is its own gives no signals: its workers poll, so what it may claim stays its claim's", async () => {
    const variant = new SketchLiteralQueue(openStore(`${run.dir}/queue.db`), { clock: systemClock(), random: seededRandom(1) });
    open.push(variant);
    expect(variant.wakeSignals).toBeNull();
    expect(new SqliteLeaseStore(variant).wakeSignals).toBeNull();
  });

  it('without signals it sleeps one poll; stopped, it returns at once', async () => {
    await waitForWork(undefined, undefined, POLL_MS, new AbortController().signal);
    const quiet: WakeSignals = { changeCount: () => 1, msUntilDue: async () => null };
    const stop = new AbortController();
    const waiting = waitForWork(quiet, 1, POLL_MS, stop.signal, NEVER);
    stop.abort();
    await waiting;
  });
});
