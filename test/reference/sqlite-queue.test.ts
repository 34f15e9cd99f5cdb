import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, utc } from '../../src/kernel/clock.js';
import { PolicyViolationError, UnknownOutcomeError } from '../../src/kernel/job-errors.js';
import { seededRandom } from '../../src/kernel/random.js';
import { REDACTED, secretsInPayload } from '../../src/kernel/redact.js';
import { retryDelayMs } from '../../src/port/retry-delay.js';
import type { JobStatus } from '../../src/port/states.js';
import { MissingDigestError } from '../../src/reference/digest.js';
import type { JobEvent, Lease } from '../../src/reference/job.js';
import { type Claimed, type QueueOptions, SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import type { EffectKind } from '../../src/saga/recovery.js';
import { UnguardedWritesQueue } from '../../src/variants/unguarded-writes/unguarded-writes-queue.js';

const T0 = Date.UTC(2026, 7, 25, 10, 0, 0);
const LEASE_MS = 30_000;
const SKEW_MS = 1_000;
const POLICY = { baseMs: 1_000, capMs: 60_000, jitterMs: 500 };
const SEED = 7;
const DIGEST = createHash('sha256').update('verified result').digest('hex');
const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let dir: string;
let file: string;
let clock: ManualClock;
let queue: SqliteQueue;
let opened: Array<{ close(): void; open: boolean }>;

/** Opens another queue on the same file: another process's connection, sharing the clock. */
function openQueue(options: Partial<QueueOptions> = {}): SqliteQueue {
  const q = SqliteQueue.open(file, {
    clock,
    random: seededRandom(SEED),
    leaseMs: LEASE_MS,
    skewMarginMs: SKEW_MS,
    retryDelay: POLICY,
    ...options,
  });
  opened.push(q.db);
  return q;
}

/** A connection that knows nothing of the queue's code: a foreign writer of the file. */
function rawConnection(): Database.Database {
  const db = new Database(file);
  opened.push(db);
  return db;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'queue-drill-sqlite-queue-'));
  file = join(dir, 'queue.db');
  clock = new ManualClock(T0);
  opened = [];
  queue = openQueue();
});

afterEach(async () => {
  for (const db of opened) if (db.open) db.close();
  await rm(dir, { recursive: true, force: true });
});

function add(key = 'job-1', maxAttempts?: number): number {
  return queue.enqueue({ key, action: 'charge', payload: { amount: 100 }, ...(maxAttempts === undefined ? {} : { maxAttempts }) }).jobId;
}

function claimBy(workerId: string, q: SqliteQueue = queue): Claimed {
  const claimed = q.claim(workerId);
  if (!claimed) throw new Error(`${workerId} claimed nothing`);
  return claimed;
}

function moves(jobId: number, q: SqliteQueue = queue): string[] {
  return q.history(jobId).map((e) => `${e.kind === 'refused' ? 'refused ' : ''}${e.from_status ?? '(new)'}>${e.to_status}`);
}

function lastEvent(jobId: number): JobEvent {
  const event = queue.history(jobId).at(-1);
  if (!event) throw new Error(`job ${jobId} has no history`);
  return event;
}

/** Past the end of a lease taken at `claimedAt` by the skew margin plus `extraMs`. */
function expireLease(claimedAt: number, extraMs = 1): void {
  clock.advance(claimedAt + LEASE_MS + SKEW_MS + extraMs - clock.now());
}

/** A job whose worker died, taken back and claimed by `workerId`: the first worker's lease is stale. */
function leaseLostTo(workerId: string): { jobId: number; stale: Lease; current: Claimed } {
  const jobId = add();
  const first = claimBy('w1');
  expireLease(T0);
  const current = claimBy(workerId, openQueue());
  return { jobId, stale: first.lease, current };
}

describe('enqueue', () => {
  it('creates a pending job and its first history row', () => {
    expect(queue.enqueue({ key: 'order-1', action: 'charge', payload: { amount: 100 } })).toEqual({ created: true, jobId: 1 });
    expect(queue.job(1)).toMatchObject({
      id: 1,
      idempotency_key: 'order-1',
      action: 'charge',
      payload_json: '{"amount":100}',
      status: 'pending',
      attempts: 0,
      max_attempts: 3,
      leased_by: null,
      lease_until: null,
      next_run_at: utc(T0),
      result_digest: null,
      last_error: null,
      created_at: utc(T0),
      updated_at: utc(T0),
      lease_fence: 0,
      review_reason: null,
    });
    expect(queue.history(1)).toEqual([
      {
        id: 1,
        job_id: 1,
        kind: 'transition',
        from_status: null,
        to_status: 'pending',
        attempt: 0,
        fence: 0,
        worker: null,
        actor: 'producer',
        reason: 'enqueued',
        at: utc(T0),
        delay_ms: null,
      },
    ]);
  });

  it('returns the same job for a key it has seen, and changes nothing', () => {
    const first = queue.enqueue({ key: 'order-1', action: 'charge', payload: { amount: 100 } });
    const before = queue.job(first.jobId);
    clock.advance(5_000);
    const again = queue.enqueue({ key: 'order-1', action: 'refund', payload: { amount: 999 }, maxAttempts: 9 });
    const fromAnotherProducer = openQueue().enqueue({ key: 'order-1', action: 'charge', payload: {} });
    expect(again).toEqual({ created: false, jobId: first.jobId });
    expect(fromAnotherProducer).toEqual({ created: false, jobId: first.jobId });
    expect(queue.job(first.jobId)).toEqual(before);
    expect(queue.history(first.jobId)).toHaveLength(1);
    // A refused insert may use up an id (AUTOINCREMENT): ids are unique, not gapless.
    const second = queue.enqueue({ key: 'order-2', action: 'charge', payload: {} });
    expect(second.created).toBe(true);
    expect(second.jobId).toBeGreaterThan(first.jobId);
    expect(queue.jobs().map((j) => j.idempotency_key)).toEqual(['order-1', 'order-2']);
  });

  it.each([
    { name: 'a string, as given (already JSON)', payload: '{"b":1,  "a":2}', stored: '{"b":1,  "a":2}' },
    { name: 'an object, as JSON', payload: { b: 1, a: [2, 'x'] }, stored: '{"b":1,"a":[2,"x"]}' },
    { name: 'null, as JSON', payload: null, stored: 'null' },
  ])('stores a payload that is $name', ({ payload, stored }) => {
    const { jobId } = queue.enqueue({ key: 'k', action: 'a', payload });
    expect(queue.job(jobId)?.payload_json).toBe(stored);
  });

  it('takes max attempts from the request, else from the queue default', () => {
    expect(queue.job(add('a'))?.max_attempts).toBe(3);
    expect(queue.job(add('b', 5))?.max_attempts).toBe(5);
    const q = openQueue({ defaultMaxAttempts: 7 });
    expect(q.job(q.enqueue({ key: 'c', action: 'a', payload: {} }).jobId)?.max_attempts).toBe(7);
  });
});

describe('claim', () => {
  it('returns null when nothing is ready', () => {
    expect(queue.claim('w1')).toBeNull();
  });

  it('counts the attempt and takes a lease under a new fence', () => {
    const jobId = add();
    clock.advance(2_000);
    const claimed = claimBy('w1');
    expect(claimed.lease).toEqual({ jobId, workerId: 'w1', fence: 1 });
    expect(claimed.job).toEqual(queue.job(jobId));
    expect(claimed.job).toMatchObject({
      status: 'running',
      attempts: 1,
      leased_by: 'w1',
      lease_until: utc(T0 + 2_000 + LEASE_MS),
      lease_fence: 1,
      updated_at: utc(T0 + 2_000),
    });
    expect(lastEvent(jobId)).toMatchObject({
      kind: 'transition',
      from_status: 'pending',
      to_status: 'running',
      attempt: 1,
      fence: 1,
      worker: 'w1',
      actor: 'worker',
      at: utc(T0 + 2_000),
    });
  });

  it('takes the lease length given to the claim over the default', () => {
    add();
    expect(queue.claim('w1', 5_000)?.job.lease_until).toBe(utc(T0 + 5_000));
  });

  it('takes the oldest ready job first', () => {
    const ids = ['a', 'b', 'c'].map((key) => {
      clock.advance(10);
      return add(key);
    });
    const claimed = ['w1', 'w2', 'w3', 'w4'].map((w) => queue.claim(w)?.job.id ?? null);
    expect(claimed).toEqual([...ids, null]);
  });

  it('takes an older job made ready again before a newer one', () => {
    const older = add('older');
    const first = claimBy('w1');
    queue.retry(first.lease, 'HTTP 503', 1);
    clock.advance(60_000);
    const newer = add('newer');
    expect(claimBy('w2').job.id).toBe(older);
    expect(claimBy('w3').job.id).toBe(newer);
  });

  it('does not take a job under a live lease, up to the end of the skew margin', () => {
    const jobId = add();
    claimBy('w1');
    expireLease(T0, 0); // exactly lease end + skew margin: still held
    expect(openQueue().claim('w2')).toBeNull();
    expect(queue.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w1', attempts: 1 });
  });

  it('respects next_run_at: not before, exactly at it', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    clock.advance(100);
    expect(queue.retry(claimed.lease, 'HTTP 503', 1)).toEqual({ ok: true, status: 'retry' });
    const readyAt = Date.parse(queue.job(jobId)!.next_run_at);
    expect(readyAt).toBeGreaterThan(clock.now());
    clock.advance(readyAt - clock.now() - 1);
    expect(queue.claim('w2')).toBeNull();
    clock.advance(1);
    expect(claimBy('w2').job).toMatchObject({ id: jobId, attempts: 2, lease_fence: 2, leased_by: 'w2' });
    expect(moves(jobId)).toEqual(['(new)>pending', 'pending>running', 'running>retry', 'retry>running']);
  });

  it('does not take a future job: next_run_at of a new job is its enqueue time', () => {
    clock.advance(1_000);
    add();
    // A second connection whose clock lags: the job is not ready for it yet.
    const lagging = SqliteQueue.open(file, { clock: { now: () => T0 }, random: seededRandom(1) });
    opened.push(lagging.db);
    expect(lagging.claim('w-lagging')).toBeNull();
    expect(claimBy('w1').job.attempts).toBe(1);
  });
});

describe('a job whose worker died', () => {
  it('is claimable again once its lease and the skew margin have passed', () => {
    const jobId = add();
    claimBy('w1'); // ...and w1 is SIGKILLed here
    expireLease(T0);
    const restarted = openQueue();
    const claimed = claimBy('w2', restarted);
    expect(claimed.job).toMatchObject({ id: jobId, status: 'running', attempts: 2, leased_by: 'w2', lease_fence: 2 });
    expect(claimed.lease).toEqual({ jobId, workerId: 'w2', fence: 2 });
    expect(moves(jobId)).toEqual(['(new)>pending', 'pending>running', 'running>retry', 'retry>running']);
    expect(queue.history(jobId)[2]).toMatchObject({ actor: 'worker', worker: 'w2', attempt: 1, fence: 1 });
    expect(queue.history(jobId)[2]?.reason).toMatch(/lease of w1 expired/);
  });

  it('goes to review, not back to work, when it died on its last attempt', () => {
    const jobId = add('job-1', 2);
    claimBy('w1');
    expireLease(T0);
    claimBy('w2'); // attempt 2 of 2, and w2 dies too
    expireLease(clock.now());
    expect(openQueue().claim('w3')).toBeNull();
    const job = queue.job(jobId);
    expect(job).toMatchObject({ status: 'review', attempts: 2, leased_by: null, lease_until: null });
    expect(job?.review_reason).toMatch(/lease of w2 expired .* on its last attempt \(2 of 2\)/);
    expect(moves(jobId)).toEqual(['(new)>pending', 'pending>running', 'running>retry', 'retry>running', 'running>review']);
    clock.advance(24 * 3_600_000);
    expect(queue.claim('w4')).toBeNull();
  });

  it("is taken back by the coordinator's sweep too, without a claim", () => {
    const a = add('a');
    const b = add('b', 1);
    claimBy('w1');
    claimBy('w2');
    clock.advance(LEASE_MS + SKEW_MS);
    expect(queue.sweepExpiredLeases()).toEqual([]);
    clock.advance(1);
    expect(queue.sweepExpiredLeases('coordinator', 'coord-1')).toEqual([
      { jobId: a, to: 'retry' },
      { jobId: b, to: 'review' },
    ]);
    expect(lastEvent(a)).toMatchObject({ from_status: 'running', to_status: 'retry', actor: 'coordinator', worker: 'coord-1' });
    expect(lastEvent(b)).toMatchObject({ from_status: 'running', to_status: 'review', actor: 'coordinator' });
    expect(queue.job(a)).toMatchObject({ status: 'retry', leased_by: null, lease_until: null, next_run_at: utc(clock.now()) });
    expect(queue.sweepExpiredLeases()).toEqual([]);
  });
});

describe('heartbeat', () => {
  it('renews the lease, so the job is not taken back at the old end', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    clock.advance(20_000);
    expect(queue.heartbeat(claimed.lease)).toEqual({ ok: true, status: 'running', leaseUntil: utc(T0 + 20_000 + LEASE_MS) });
    expect(queue.job(jobId)).toMatchObject({ lease_until: utc(T0 + 20_000 + LEASE_MS), updated_at: utc(T0 + 20_000) });
    expect(queue.history(jobId)).toHaveLength(2); // a renewal is not a state change
    expireLease(T0); // past the first lease, inside the renewed one
    expect(openQueue().claim('w2')).toBeNull();
    expect(queue.heartbeat(claimed.lease, 5_000)).toEqual({ ok: true, status: 'running', leaseUntil: utc(clock.now() + 5_000) });
    expect(queue.job(jobId)?.lease_until).toBe(utc(clock.now() + 5_000));
  });

  it('is refused, and the refusal recorded, once the lease was lost', () => {
    const { jobId, stale } = leaseLostTo('w2');
    const before = queue.job(jobId);
    expect(queue.heartbeat(stale)).toEqual({
      ok: false,
      code: 'QD_LEASE_LOST',
      current: { status: 'running', leasedBy: 'w2', fence: 2 },
    });
    expect(queue.job(jobId)).toEqual(before);
    expect(lastEvent(jobId)).toMatchObject({ kind: 'refused', worker: 'w1', fence: 1, to_status: 'running' });
  });
});

describe('a write under a lost lease', () => {
  const writes: Array<{ op: string; to: JobStatus; write: (q: SqliteQueue, lease: Lease) => unknown }> = [
    { op: 'heartbeat', to: 'running', write: (q, lease) => q.heartbeat(lease) },
    { op: 'complete', to: 'done', write: (q, lease) => q.complete(lease, DIGEST) },
    { op: 'retry', to: 'retry', write: (q, lease) => q.retry(lease, 'HTTP 503', 1) },
    { op: 'review', to: 'review', write: (q, lease) => q.review(lease, 'looks wrong', 'err') },
  ];

  it.each(writes)('$op is refused, changes nothing, and lands in the history as refused', ({ op, to, write }) => {
    const { jobId, stale } = leaseLostTo('w2');
    const before = queue.job(jobId);
    const historyBefore = queue.history(jobId);
    clock.advance(10);
    expect(write(queue, stale)).toEqual({ ok: false, code: 'QD_LEASE_LOST', current: { status: 'running', leasedBy: 'w2', fence: 2 } });
    expect(queue.job(jobId)).toEqual(before);
    const history = queue.history(jobId);
    expect(history.slice(0, -1)).toEqual(historyBefore);
    expect(history.at(-1)).toMatchObject({
      kind: 'refused',
      from_status: 'running',
      to_status: to,
      attempt: 2,
      fence: 1,
      worker: 'w1',
      actor: 'worker',
      at: utc(clock.now()),
    });
    expect(history.at(-1)?.reason).toMatch(
      new RegExp(`^${op} refused: lease of w1 under fence 1 was lost \\(job is running, held by w2 under fence 2\\)`),
    );
  });

  it.each(writes)('$op is refused for the same worker id under an old fence (a restarted worker)', ({ to, write }) => {
    const jobId = add();
    const before = claimBy('w1');
    expireLease(T0);
    const after = claimBy('w1', openQueue()); // w1 restarted under the same id
    expect(after.lease).toEqual({ jobId, workerId: 'w1', fence: 2 });
    expect(write(queue, before.lease)).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(lastEvent(jobId)).toMatchObject({ kind: 'refused', to_status: to, worker: 'w1', fence: 1 });
    expect(queue.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w1', lease_fence: 2 });
  });

  it('is refused once the job is done, and says it is no longer leased', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    expect(queue.complete(claimed.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
    expect(queue.retry(claimed.lease, 'late', 1)).toEqual({
      ok: false,
      code: 'QD_LEASE_LOST',
      current: { status: 'done', leasedBy: null, fence: 1 },
    });
    expect(lastEvent(jobId).reason).toMatch(/job is done, not leased/);
    expect(queue.job(jobId)?.status).toBe('done');
  });

  it('is refused for a job that does not exist, without a history row', () => {
    expect(queue.heartbeat({ jobId: 99, workerId: 'w1', fence: 1 })).toEqual({ ok: false, code: 'QD_LEASE_LOST', current: null });
    expect(queue.events()).toEqual([]);
  });
});

describe('complete', () => {
  it('marks the job done with its digest and releases the lease', () => {
    const jobId = add();
    const first = claimBy('w1');
    queue.retry(first.lease, 'HTTP 503', 1);
    clock.advance(3_600_000);
    const second = claimBy('w1');
    clock.advance(5);
    expect(queue.complete(second.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
    expect(queue.job(jobId)).toMatchObject({
      status: 'done',
      result_digest: DIGEST,
      leased_by: null,
      lease_until: null,
      last_error: null,
      attempts: 2,
      updated_at: utc(clock.now()),
    });
    expect(lastEvent(jobId)).toMatchObject({ kind: 'transition', from_status: 'running', to_status: 'done', worker: 'w1', fence: 2 });
    expect(lastEvent(jobId).reason).toContain(DIGEST.slice(0, 12));
  });

  it.each([
    { name: 'an empty string', digest: '' },
    { name: 'a word', digest: 'verified' },
    { name: '63 hex digits', digest: DIGEST.slice(1) },
    { name: '65 hex digits', digest: `${DIGEST}0` },
    { name: 'upper-case hex', digest: DIGEST.toUpperCase() },
    { name: 'a non-hex digit', digest: `g${DIGEST.slice(1)}` },
    { name: 'a digest with a newline after it', digest: `${DIGEST}\n` },
    { name: 'undefined', digest: undefined as unknown as string },
  ])('refuses done without a 64-hex digest: $name', ({ digest }) => {
    const jobId = add();
    const claimed = claimBy('w1');
    const before = queue.job(jobId);
    expect(() => queue.complete(claimed.lease, digest)).toThrow(MissingDigestError);
    try {
      queue.complete(claimed.lease, digest);
    } catch (error) {
      expect(error).toMatchObject({ code: 'QD_DONE_WITHOUT_DIGEST' });
    }
    expect(queue.job(jobId)).toEqual(before);
    expect(queue.history(jobId)).toHaveLength(2);
  });

  it('is refused under a stale fence, and the refusal is in the history, not silently dropped', () => {
    const jobId = add();
    const stale = claimBy('w1').lease;
    expireLease(T0);
    const fresh = claimBy('w1').lease; // same worker id, new claim: only the fence tells them apart
    const result = queue.complete(stale, DIGEST);
    expect(result).toEqual({ ok: false, code: 'QD_LEASE_LOST', current: { status: 'running', leasedBy: 'w1', fence: 2 } });
    expect(queue.job(jobId)).toMatchObject({ status: 'running', result_digest: null });
    expect(moves(jobId)).toEqual(['(new)>pending', 'pending>running', 'running>retry', 'retry>running', 'refused running>done']);
    expect(queue.complete(fresh, DIGEST)).toEqual({ ok: true, status: 'done' });
    expect(queue.job(jobId)?.result_digest).toBe(DIGEST);
  });
});

describe('completeAndClaim', () => {
  it('marks the job done and claims the next for the same worker, in one transaction: one change of the file', () => {
    const first = add('job-1');
    const second = add('job-2');
    const held = claimBy('w1');
    const watcher = openQueue();
    const before = watcher.wakeSignals!.changeCount();
    clock.advance(5);
    const { write, next } = queue.completeAndClaim(held.lease, DIGEST, 'w1');
    expect(write).toEqual({ ok: true, status: 'done' });
    expect(next?.job).toMatchObject({ id: second, status: 'running', leased_by: 'w1', attempts: 1, lease_fence: 1 });
    expect(next?.lease).toEqual({ jobId: second, workerId: 'w1', fence: 1 });
    expect(moves(first)).toEqual(['(new)>pending', 'pending>running', 'running>done']);
    expect(moves(second)).toEqual(['(new)>pending', 'pending>running']);
    // Another connection sees one commit, not two: the done write and the claim are one transaction.
    expect(watcher.wakeSignals!.changeCount()).toBe(before + 1);
  });

  it('claims nothing when nothing is ready, and still claims the next when the done write is refused', () => {
    const only = add('only');
    const held = claimBy('w1');
    expect(queue.completeAndClaim(held.lease, DIGEST, 'w1')).toEqual({ write: { ok: true, status: 'done' }, next: null });
    const { jobId, stale } = leaseLostTo('w2');
    const waiting = add('job-3');
    const { write, next } = queue.completeAndClaim(stale, DIGEST, 'w1');
    expect(write).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(moves(jobId).at(-1)).toBe('refused running>done');
    expect(next?.job).toMatchObject({ id: waiting, leased_by: 'w1' });
    expect(queue.job(only)?.status).toBe('done');
  });

  it('is offered by the reference only: a broken variant keeps its writes and its claim apart', () => {
    expect(queue.batchesClaims).toBe(true);
    expect(new UnguardedWritesQueue(queue.db, { clock, random: seededRandom(SEED) }).batchesClaims).toBe(false);
  });
});

describe('retry', () => {
  it('releases the job until now + the retry delay, recording the error', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    clock.advance(250);
    const expectedDelay = retryDelayMs(1, POLICY, seededRandom(SEED));
    expect(queue.retry(claimed.lease, 'HTTP 503 from payments', 1)).toEqual({ ok: true, status: 'retry' });
    expect(queue.job(jobId)).toMatchObject({
      status: 'retry',
      next_run_at: utc(T0 + 250 + expectedDelay),
      last_error: 'HTTP 503 from payments',
      leased_by: null,
      lease_until: null,
      review_reason: null,
      attempts: 1,
    });
    expect(lastEvent(jobId)).toMatchObject({ from_status: 'running', to_status: 'retry', attempt: 1, worker: 'w1' });
    expect(lastEvent(jobId).reason).toBe(`retry in ${expectedDelay} ms: HTTP 503 from payments`);
  });

  it('waits longer after each attempt, with jitter from the seeded random', () => {
    const jobId = add('job-1', 5);
    const random = seededRandom(SEED);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = claimBy('w1');
      const expected = retryDelayMs(attempt, POLICY, random);
      queue.retry(claimed.lease, 'HTTP 503', claimed.job.attempts);
      expect(Date.parse(queue.job(jobId)!.next_run_at) - clock.now()).toBe(expected);
      clock.advance(expected);
    }
    expect(queue.job(jobId)?.attempts).toBe(3);
  });

  it('sends the job to review instead when its attempts are used up', () => {
    const jobId = add('job-1', 2);
    queue.retry(claimBy('w1').lease, 'HTTP 503', 1);
    clock.advance(3_600_000);
    const last = claimBy('w2');
    expect(queue.retry(last.lease, 'HTTP 503 again', 2)).toEqual({ ok: true, status: 'review' });
    const job = queue.job(jobId);
    expect(job).toMatchObject({ status: 'review', attempts: 2, leased_by: null, lease_until: null, last_error: 'HTTP 503 again' });
    expect(job?.review_reason).toBe('retries exhausted (2 of 2): HTTP 503 again');
    expect(lastEvent(jobId)).toMatchObject({ from_status: 'running', to_status: 'review', reason: job?.review_reason });
    clock.advance(24 * 3_600_000);
    expect(queue.claim('w3')).toBeNull();
  });
});

describe('review', () => {
  it('stores the reason, releases the lease, and keeps the job there', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    clock.advance(7);
    expect(queue.review(claimed.lease, 'amount over the limit', 'BusinessRuleError: over limit')).toEqual({ ok: true, status: 'review' });
    expect(queue.job(jobId)).toMatchObject({
      status: 'review',
      review_reason: 'amount over the limit',
      last_error: 'BusinessRuleError: over limit',
      leased_by: null,
      lease_until: null,
      updated_at: utc(T0 + 7),
    });
    expect(lastEvent(jobId)).toMatchObject({ from_status: 'running', to_status: 'review', reason: 'amount over the limit', worker: 'w1' });
    clock.advance(30 * 24 * 3_600_000);
    expect(queue.sweepExpiredLeases()).toEqual([]);
    expect(queue.claim('w2')).toBeNull();
    expect(queue.job(jobId)?.status).toBe('review');
  });

  it('keeps the last error when no new one is given', () => {
    const jobId = add();
    queue.retry(claimBy('w1').lease, 'HTTP 503', 1);
    clock.advance(3_600_000);
    queue.review(claimBy('w1').lease, 'a person should look');
    expect(queue.job(jobId)).toMatchObject({ status: 'review', last_error: 'HTTP 503', review_reason: 'a person should look' });
  });
});

describe('fail: routing by the recovery matrix', () => {
  const cases: Array<{ name: string; error: unknown; effect: EffectKind; action: string; status: JobStatus }> = [
    {
      name: 'a timeout on a non-idempotent effect',
      error: new Error('request timeout after 5000 ms'),
      effect: 'non_idempotent',
      action: 'reconcile',
      status: 'running',
    },
    {
      name: 'a lost response on a non-idempotent effect',
      error: new Error('socket hang up'),
      effect: 'non_idempotent',
      action: 'reconcile',
      status: 'running',
    },
    {
      name: 'an UnknownOutcomeError on a non-idempotent effect',
      error: new UnknownOutcomeError('no answer'),
      effect: 'non_idempotent',
      action: 'reconcile',
      status: 'running',
    },
    { name: 'a timeout on an idempotent effect', error: new Error('request timeout'), effect: 'idempotent', action: 'retry', status: 'retry' },
    { name: 'a timeout with no effect', error: new Error('ETIMEDOUT'), effect: 'none', action: 'retry', status: 'retry' },
    { name: '401', error: new Error('HTTP 401 Unauthorized'), effect: 'idempotent', action: 'review', status: 'review' },
    { name: '403 on a non-idempotent effect', error: new Error('HTTP 403'), effect: 'non_idempotent', action: 'review', status: 'review' },
    { name: '503', error: new Error('HTTP 503 Service Unavailable'), effect: 'non_idempotent', action: 'retry', status: 'retry' },
    { name: '429', error: new Error('HTTP 429'), effect: 'idempotent', action: 'retry', status: 'retry' },
    { name: 'a policy violation', error: new PolicyViolationError('outbound email is off'), effect: 'none', action: 'review', status: 'review' },
    { name: 'an unclassified error', error: new Error('boom'), effect: 'idempotent', action: 'review', status: 'review' },
  ];

  it.each(cases)('$name -> $action ($status)', ({ error, effect, action, status }) => {
    const jobId = add();
    const claimed = claimBy('w1');
    const historyBefore = queue.history(jobId);
    const result = queue.fail(claimed, error, effect);
    expect(result.decision.action).toBe(action);
    expect(queue.job(jobId)?.status).toBe(status);
    if (action === 'reconcile') {
      // Never a blind retry: nothing is written, the caller must ask the world.
      expect(result.write).toBeNull();
      expect(queue.history(jobId)).toEqual(historyBefore);
      expect(queue.job(jobId)).toMatchObject({ leased_by: 'w1', lease_fence: 1 });
    } else {
      expect(result.write).toEqual({ ok: true, status });
      expect(queue.job(jobId)?.last_error).toMatch(/^\w*Error: /);
      expect(lastEvent(jobId)).toMatchObject({ from_status: 'running', to_status: status });
    }
    if (action === 'review') expect(queue.job(jobId)?.review_reason).toBe(result.decision.action === 'review' ? result.decision.reason : '');
  });

  it('waits the retry delay of the attempt that failed', () => {
    const jobId = add('job-1', 5);
    const random = seededRandom(SEED);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = claimBy('w1');
      expect(queue.fail(claimed, new Error('HTTP 503'), 'idempotent').write).toEqual({ ok: true, status: 'retry' });
      const delay = retryDelayMs(attempt, POLICY, random);
      expect(queue.job(jobId)?.next_run_at).toBe(utc(clock.now() + delay));
      clock.advance(delay);
    }
  });

  it('sends a 503 on the last attempt to review: exhausted retries are for a person', () => {
    const jobId = add('job-1', 1);
    const result = queue.fail(claimBy('w1'), new Error('HTTP 503'), 'idempotent');
    expect(result).toEqual({ decision: { action: 'retry' }, write: { ok: true, status: 'review' } });
    expect(queue.job(jobId)?.review_reason).toMatch(/^retries exhausted \(1 of 1\)/);
  });

  it('reports a refused write when the lease was lost meanwhile', () => {
    const { jobId, stale } = leaseLostTo('w2');
    const stillHeld = { job: { ...queue.job(jobId)!, attempts: 1, lease_fence: 1, leased_by: 'w1' }, lease: stale };
    const result = queue.fail(stillHeld, new Error('HTTP 503'), 'idempotent');
    expect(result.write).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(queue.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w2' });
  });

  it('stores the error redacted and cut to 500 characters, in the row and in the history', () => {
    const payload = { account: 'acme', apiKey: 'plain-value-9f8e7d', password: 'hunter2hunter2' };
    const jobId = queue.enqueue({ key: 'secret-job', action: 'charge', payload }).jobId;
    const claimed = claimBy('w1');
    const error = new Error(`${'x'.repeat(600)} key plain-value-9f8e7d rejected, password hunter2hunter2, Bearer abcdef123456 HTTP 401`);
    queue.fail(claimed, error, 'idempotent', secretsInPayload(payload));
    const job = queue.job(jobId)!;
    expect(job.status).toBe('review');
    expect(job.last_error).toHaveLength(500);
    expect(job.last_error).toContain(`key ${REDACTED} rejected`);
    const stored = JSON.stringify([job.last_error, job.review_reason, queue.history(jobId)]);
    for (const secret of ['plain-value-9f8e7d', 'hunter2hunter2', 'abcdef123456']) expect(stored).not.toContain(secret);
  });

  it('stores the error of a retry redacted, in the history reason too', () => {
    const payload = { token: 'tok-1234567' };
    const jobId = queue.enqueue({ key: 'secret-job', action: 'charge', payload }).jobId;
    queue.fail(claimBy('w1'), new Error('HTTP 503 for tok-1234567'), 'idempotent', secretsInPayload(payload));
    expect(queue.job(jobId)?.last_error).toBe(`Error: HTTP 503 for ${REDACTED}`);
    expect(lastEvent(jobId).reason).toContain(`HTTP 503 for ${REDACTED}`);
    expect(JSON.stringify(queue.history(jobId))).not.toContain('tok-1234567');
  });
});

describe('requeueFromReview', () => {
  it('is the way out of review: a recorded human action, with one more attempt', () => {
    const jobId = add('job-1', 1);
    queue.fail(claimBy('w1'), new Error('HTTP 503'), 'idempotent'); // exhausted: review
    expect(queue.job(jobId)).toMatchObject({ status: 'review', attempts: 1, max_attempts: 1 });
    clock.advance(60_000);
    expect(queue.requeueFromReview(jobId, 'alice', 'upstream fixed')).toBe(true);
    expect(queue.job(jobId)).toMatchObject({ status: 'pending', attempts: 1, max_attempts: 2, next_run_at: utc(T0 + 60_000) });
    expect(lastEvent(jobId)).toMatchObject({
      kind: 'transition',
      from_status: 'review',
      to_status: 'pending',
      actor: 'human',
      worker: null,
      reason: 'requeued by alice: upstream fixed',
      at: utc(T0 + 60_000),
    });
    const claimed = claimBy('w2');
    expect(claimed.job).toMatchObject({ id: jobId, attempts: 2, max_attempts: 2, lease_fence: 2 });
    expect(queue.complete(claimed.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
  });

  it('keeps max attempts when attempts are left', () => {
    const jobId = add('job-1', 5);
    queue.review(claimBy('w1').lease, 'check the amount');
    expect(queue.requeueFromReview(jobId, 'bob', 'amount ok')).toBe(true);
    expect(queue.job(jobId)?.max_attempts).toBe(5);
  });

  const notInReview: Array<{ status: JobStatus | 'missing'; setUp: () => number }> = [
    { status: 'pending', setUp: () => add() },
    {
      status: 'running',
      setUp: () => {
        add();
        return claimBy('w1').job.id;
      },
    },
    {
      status: 'retry',
      setUp: () => {
        add();
        const c = claimBy('w1');
        queue.retry(c.lease, 'e', 1);
        return c.job.id;
      },
    },
    {
      status: 'done',
      setUp: () => {
        add();
        const c = claimBy('w1');
        queue.complete(c.lease, DIGEST);
        return c.job.id;
      },
    },
    { status: 'missing', setUp: () => 404 },
  ];

  it.each(notInReview)('does nothing to a job that is $status', ({ setUp }) => {
    const jobId = setUp();
    const before = queue.job(jobId);
    const events = queue.events();
    expect(queue.requeueFromReview(jobId, 'alice', 'oops')).toBe(false);
    expect(queue.job(jobId)).toEqual(before);
    expect(queue.events()).toEqual(events);
  });

  it('is the only way out: time, sweeps, claims and the old lease holder cannot move a job in review', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    queue.review(claimed.lease, 'a person must look');
    for (let day = 0; day < 3; day++) {
      clock.advance(24 * 3_600_000);
      queue.sweepExpiredLeases();
      expect(queue.claim(`w${day}`)).toBeNull();
    }
    expect(queue.heartbeat(claimed.lease)).toMatchObject({ ok: false });
    expect(queue.retry(claimed.lease, 'e', 1)).toMatchObject({ ok: false });
    expect(queue.complete(claimed.lease, DIGEST)).toMatchObject({ ok: false });
    expect(queue.job(jobId)?.status).toBe('review');
    expect(moves(jobId).filter((m) => !m.startsWith('refused'))).toEqual(['(new)>pending', 'pending>running', 'running>review']);
  });
});

describe('the transition trigger in the store file', () => {
  /** Drives a new job into `status` through the queue's own operations. */
  function jobIn(status: JobStatus): number {
    const jobId = add(`job-${status}-${Math.random()}`);
    if (status === 'pending') return jobId;
    const claimed = claimBy('w1');
    if (status === 'retry') queue.retry(claimed.lease, 'e', 1);
    if (status === 'done') queue.complete(claimed.lease, DIGEST);
    if (status === 'review') queue.review(claimed.lease, 'r');
    if (status === 'compensating') queue.beginCompensation(claimed.lease, 'step failed', 'e');
    expect(queue.job(jobId)?.status).toBe(status);
    return jobId;
  }

  it('refuses the example: done back to pending, written by raw SQL', () => {
    const jobId = jobIn('done');
    const raw = rawConnection();
    expect(() => raw.prepare(`UPDATE agent_jobs SET status='pending' WHERE status='done'`).run()).toThrow(/QD_TRANSITION_NOT_ALLOWED/);
    expect(queue.job(jobId)?.status).toBe('done');
  });

  // Written out, not derived from ALLOWED_TRANSITIONS: this checks the table as much as the trigger.
  const ALLOWED = new Set([
    'pending>running',
    'retry>running',
    'running>done',
    'running>retry',
    'running>review',
    'review>pending',
    'running>compensating',
    'compensating>review',
  ]);
  const STATUSES: JobStatus[] = ['pending', 'running', 'retry', 'done', 'review', 'compensating'];
  const PAIRS = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => ({ from, to, allowed: ALLOWED.has(`${from}>${to}`) })));

  it.each(PAIRS)('$from -> $to by raw SQL: allowed $allowed', ({ from, to, allowed }) => {
    const jobId = jobIn(from);
    const update = () => rawConnection().prepare('UPDATE agent_jobs SET status = ? WHERE id = ?').run(to, jobId);
    if (allowed) {
      expect(update().changes).toBe(1);
      expect(queue.job(jobId)?.status).toBe(to);
    } else {
      expect(update).toThrow(/QD_TRANSITION_NOT_ALLOWED/);
      expect(queue.job(jobId)?.status).toBe(from);
    }
  });

  it('lets writes that keep the status through', () => {
    const jobId = jobIn('done');
    rawConnection().prepare(`UPDATE agent_jobs SET status = 'done', last_error = 'note' WHERE id = ?`).run(jobId);
    expect(queue.job(jobId)?.last_error).toBe('note');
  });

  it.each(['running', 'retry', 'done', 'review'] as const)('refuses a job inserted as %s', (status) => {
    const insert = rawConnection().prepare(
      `INSERT INTO agent_jobs (idempotency_key, action, payload_json, status, next_run_at, created_at, updated_at)
       VALUES ('raw', 'a', '{}', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    );
    expect(() => insert.run(status)).toThrow(/QD_TRANSITION_NOT_ALLOWED/);
    expect(queue.jobs()).toEqual([]);
  });
});

describe('stored times', () => {
  it('are all the one fixed-width UTC format, so string order is time order', () => {
    // A life that touches every write: enqueue, claim, heartbeat, retry, lease expiry,
    // review, requeue, complete, and a refused write.
    const jobId = add('job-1', 2);
    clock.advance(1);
    const first = claimBy('w1');
    clock.advance(999);
    queue.heartbeat(first.lease);
    queue.retry(first.lease, 'HTTP 503', 1);
    clock.advance(3_600_000);
    claimBy('w2');
    expireLease(clock.now() - LEASE_MS - SKEW_MS, 10 ** 10); // far into the next year
    queue.sweepExpiredLeases();
    queue.requeueFromReview(jobId, 'alice', 'again');
    const last = claimBy('w3');
    queue.heartbeat(first.lease); // refused
    clock.advance(123);
    queue.complete(last.lease, DIGEST);
    add('job-2');
    claimBy('w4'); // a job with a lease still set

    const raw = rawConnection();
    const jobTimes = raw.prepare(`SELECT created_at, updated_at, next_run_at, lease_until FROM agent_jobs`).all() as Array<
      Record<string, string | null>
    >;
    const eventTimes = raw.prepare(`SELECT at FROM agent_job_events ORDER BY id`).all() as Array<{ at: string }>;
    const times = [...jobTimes.flatMap((row) => Object.values(row)), ...eventTimes.map((e) => e.at)].filter((t): t is string => t !== null);
    expect(times.length).toBeGreaterThan(15);
    for (const t of times) expect(t).toMatch(STAMP);
    expect(raw.prepare(`SELECT COUNT(*) AS n FROM agent_jobs WHERE lease_until IS NOT NULL`).get()).toEqual({ n: 1 });

    // Event times in the order things happened, by plain string comparison.
    const ats = eventTimes.map((e) => e.at);
    expect(ats).toEqual([...ats].sort());
    expect(new Set(ats).size).toBeGreaterThan(5);
    const types = raw.prepare(`SELECT DISTINCT typeof(at) AS t FROM agent_job_events`).all();
    expect(types).toEqual([{ t: 'text' }]);
  });

  it('are written from the queue clock, never from the database clock', () => {
    const jobId = add();
    const claimed = claimBy('w1');
    clock.advance(42);
    queue.heartbeat(claimed.lease);
    expect(queue.job(jobId)).toMatchObject({
      created_at: '2026-08-25T10:00:00.000Z',
      next_run_at: '2026-08-25T10:00:00.000Z',
      updated_at: '2026-08-25T10:00:00.042Z',
      lease_until: '2026-08-25T10:00:30.042Z',
    });
  });
});

describe('reading the store', () => {
  it('counts jobs by status and rebuilds each life from its id', () => {
    const a = add('a');
    const b = add('b');
    add('c');
    queue.complete(claimBy('w1').lease, DIGEST);
    queue.review(claimBy('w2').lease, 'look');
    expect(queue.counts()).toEqual({ pending: 1, running: 0, retry: 0, done: 1, review: 1, compensating: 0 });
    expect(moves(a)).toEqual(['(new)>pending', 'pending>running', 'running>done']);
    expect(moves(b)).toEqual(['(new)>pending', 'pending>running', 'running>review']);
    expect(queue.events().map((e) => e.job_id)).toEqual([1, 2, 3, 1, 1, 2, 2]);
  });
});
