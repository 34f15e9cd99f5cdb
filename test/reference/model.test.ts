/*
 * Model-based test of SqliteQueue: random sequences of producer, worker, clock and
 * human actions run against the real store and a small pure model
 * (./model/queue-model.ts); after every command, the store must agree with the
 * model and with the state machine. The seed is fixed, so a run is reproducible;
 * on failure fast-check prints it with the path of the shrunk case.
 * QD_MODEL_SEED=<n> explores another seed; QD_MODEL_STATS=1 prints what was exercised.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, utc } from '../../src/kernel/clock.js';
import { PermanentError, TransientError, UnknownOutcomeError } from '../../src/kernel/job-errors.js';
import { seededRandom } from '../../src/kernel/random.js';
import { type Actor, isAllowedTransition, type JobStatus } from '../../src/port/states.js';
import type { JobEvent, Lease, LeaseWriteResult } from '../../src/reference/job.js';
import { type Claimed, SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { type ModelConfig, type ModelLease, QueueModel, type WriteOutcome } from './model/queue-model.js';

const CONFIG: ModelConfig = {
  startMs: Date.UTC(2026, 0, 1),
  leaseMs: 10_000,
  skewMarginMs: 1_000,
  // Short enough that small clock steps cross it, long enough that a retried job is often not yet ready.
  retryDelay: { baseMs: 2_000, capMs: 8_000, jitterMs: 500 },
  randomSeed: 1,
};
const EXPIRY = CONFIG.leaseMs + CONFIG.skewMarginMs;
const WORKERS = ['w0', 'w1', 'w2'] as const;
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4'] as const;
const SEED = Number(process.env.QD_MODEL_SEED ?? 20260101);

interface Real {
  queue: SqliteQueue;
  clock: ManualClock;
  /** What each worker got from its claims, in the order of the model's leases. */
  claims: Claimed[];
}

type Cmd = fc.Command<QueueModel, Real>;

// What the runs actually exercised, so a generator change cannot make the test vacuous.
const seen = new Map<string, number>();
function note(label: string): void {
  seen.set(label, (seen.get(label) ?? 0) + 1);
}

// ---------------------------------------------------------------- checks

/** Everything that must hold after any command, however the store got there. */
function checkInvariants(m: QueueModel, r: Real): void {
  const rows = r.queue.jobs();
  expect(rows.map((row) => row.id)).toEqual(m.jobs.map((j) => j.id));
  for (const job of m.jobs) {
    const row = r.queue.job(job.id)!;
    expect({
      id: row.id,
      key: row.idempotency_key,
      status: row.status,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      leasedBy: row.leased_by,
      leaseUntil: row.lease_until,
      nextRunAt: row.next_run_at,
      fence: row.lease_fence,
      resultDigest: row.result_digest,
    }).toEqual({
      id: job.id,
      key: job.key,
      status: job.status,
      attempts: job.attempts,
      maxAttempts: job.maxAttempts,
      leasedBy: job.leasedBy,
      leaseUntil: job.leaseUntil === null ? null : utc(job.leaseUntil),
      nextRunAt: utc(job.nextRunAt),
      fence: job.fence,
      resultDigest: job.resultDigest,
    });

    expect(row.attempts).toBeLessThanOrEqual(row.max_attempts);
    // An attempt is a claim: the counter and the history must tell the same story.
    const claims = r.queue.history(row.id).filter((e) => e.kind === 'transition' && e.to_status === 'running');
    expect(claims.length).toBe(row.attempts);

    const leased = row.leased_by !== null && row.lease_until !== null;
    expect(leased, `job ${row.id} is ${row.status}; leased_by=${row.leased_by} lease_until=${row.lease_until}`).toBe(row.status === 'running');
    if (row.status !== 'running') expect([row.leased_by, row.lease_until]).toEqual([null, null]);
    if (row.status === 'done') expect(row.result_digest).toMatch(/^[0-9a-f]{64}$/);
    if (row.status === 'review') expect(row.review_reason, `job ${row.id} in review without a reason`).toBeTruthy();
    // A waiting job with no attempts left could never be claimed nor reach review: stuck forever.
    if (row.status === 'pending' || row.status === 'retry') expect(row.attempts).toBeLessThan(row.max_attempts);
  }

  const events = r.queue.events();
  expect(events.length).toBe(m.events);
  for (const e of events) {
    if (e.kind !== 'transition') continue;
    expect(isAllowedTransition(e.from_status, e.to_status, e.actor as Actor), describeEvent(e)).toBe(true);
    // Review is left only by a recorded human decision, never a timer or a worker.
    if (e.from_status === 'review') expect([e.actor, e.to_status], describeEvent(e)).toEqual(['human', 'pending']);
  }
}

function describeEvent(e: JobEvent): string {
  return `event ${e.id}: job ${e.job_id} ${e.kind} ${e.from_status ?? '(new)'} -> ${e.to_status} by ${e.actor} (${e.reason})`;
}

/** A write under a lease did what the model says; a refused one is reported and recorded. */
function checkWrite(m: QueueModel, r: Real, lease: Lease, got: LeaseWriteResult, want: WriteOutcome, refusedAs: JobStatus): void {
  note(`${refusedAs === 'running' ? 'heartbeat' : refusedAs}: ${want.ok ? `-> ${want.status}` : 'refused'}`);
  if (want.ok) {
    expect(got).toEqual(want);
    return;
  }
  const job = m.job(lease.jobId);
  expect(got).toEqual({
    ok: false,
    code: 'QD_LEASE_LOST',
    current: { status: job.status, leasedBy: job.leasedBy, fence: job.fence },
  });
  const last = r.queue.events().at(-1);
  expect(last).toMatchObject({
    job_id: lease.jobId,
    kind: 'refused',
    from_status: job.status,
    to_status: refusedAs,
    fence: lease.fence,
    worker: lease.workerId,
  });
}

// ---------------------------------------------------------------- commands

/** Which remembered lease a command uses, and whether another worker forges it. */
interface LeasePick {
  /** `live`: one the model says is still held, when there is one; `any`: any lease ever handed out, mostly stale. */
  from: 'live' | 'any';
  index: number;
  forge: boolean;
}

const leasePick: fc.Arbitrary<LeasePick> = fc.record({
  // Uniform picks over all leases are mostly stale, and stale writes change nothing;
  // lean on live leases so jobs actually move, and keep enough stale ones to test the fence.
  from: fc.constantFrom('live', 'live', 'any'),
  index: fc.nat(),
  // Mostly the real holder; sometimes another worker showing the holder's fence.
  forge: fc.nat(4).map((n) => n === 0),
});

function otherWorker(workerId: string): string {
  return WORKERS[(WORKERS.indexOf(workerId as (typeof WORKERS)[number]) + 1) % WORKERS.length]!;
}

/** Base for commands acting under a lease from an earlier claim (live or stale). */
abstract class LeaseCommand implements Cmd {
  protected shown = '';
  constructor(readonly pick: LeasePick) {}
  check(m: Readonly<QueueModel>): boolean {
    return m.leases.length > 0;
  }
  protected resolve(m: QueueModel, r: Real): { lease: ModelLease; claimed: Claimed } {
    const live = m.leases.flatMap((l, i) => (m.holds(l) ? [i] : []));
    const i = this.pick.from === 'live' && live.length > 0 ? live[this.pick.index % live.length]! : this.pick.index % m.leases.length;
    const remembered = m.leases[i]!;
    const claimed = r.claims[i]!;
    const workerId = this.pick.forge ? otherWorker(remembered.workerId) : remembered.workerId;
    const stale = m.holds({ ...remembered, workerId }) ? '' : ' stale';
    if (this.pick.forge) note('lease forged by another worker');
    this.shown = `lease#${i} (job ${remembered.jobId}, ${workerId}, fence ${remembered.fence}${this.pick.forge ? ', forged' : ''}${stale})`;
    return { lease: { ...remembered, workerId }, claimed: { job: claimed.job, lease: { ...claimed.lease, workerId } } };
  }
  abstract run(m: QueueModel, r: Real): void;
  abstract toString(): string;
}

class EnqueueCommand implements Cmd {
  constructor(
    readonly key: string,
    readonly maxAttempts: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: QueueModel, r: Real): void {
    const lastId = m.jobs.at(-1)?.id ?? 0;
    const got = r.queue.enqueue({ key: this.key, action: 'drill.noop', payload: { key: this.key }, maxAttempts: this.maxAttempts });
    const want = m.enqueue(this.key, this.maxAttempts, got.jobId);
    // A repeated key is the producer retrying: same job, nothing new.
    expect(got).toEqual(want);
    note(got.created ? 'enqueue: created' : 'enqueue: duplicate');
    // Ids may skip but never go back: (created_at, id) must stay creation order.
    if (got.created) expect(got.jobId).toBeGreaterThan(lastId);
    checkInvariants(m, r);
  }
  toString(): string {
    return `enqueue(${this.key}, max ${this.maxAttempts})`;
  }
}

class ClaimCommand implements Cmd {
  constructor(readonly workerId: string) {}
  check(): boolean {
    return true;
  }
  run(m: QueueModel, r: Real): void {
    const before = m.jobs.map((j) => j.status);
    const want = m.claim(this.workerId);
    const got = r.queue.claim(this.workerId);
    note(want ? 'claim: job' : 'claim: none ready');
    m.jobs.forEach((j, i) => {
      if (before[i] === 'running' && j.status !== 'running') note(`claim swept a lease -> ${j.status}`);
    });
    expect(got?.lease ?? null).toEqual(want && { jobId: want.jobId, workerId: want.workerId, fence: want.fence });
    if (got && want) {
      expect(got.job.attempts).toBe(want.attempt);
      r.claims.push(got);
    }
    checkInvariants(m, r);
  }
  toString(): string {
    return `claim(${this.workerId})`;
  }
}

class HeartbeatCommand extends LeaseCommand {
  run(m: QueueModel, r: Real): void {
    const { lease } = this.resolve(m, r);
    const until = m.job(lease.jobId).leaseUntil;
    const want = m.heartbeat(lease);
    // Expired but not yet swept: the holder may still renew (expiry is enforced by the sweep, not by writes).
    if (want.ok && until !== null && until < m.now - CONFIG.skewMarginMs) note('heartbeat renewed an expired, unswept lease');
    checkWrite(m, r, lease, r.queue.heartbeat(lease), want, 'running');
    checkInvariants(m, r);
  }
  toString(): string {
    return `heartbeat(${this.shown})`;
  }
}

class CompleteCommand extends LeaseCommand {
  constructor(
    pick: LeasePick,
    readonly digest: string,
  ) {
    super(pick);
  }
  run(m: QueueModel, r: Real): void {
    const { lease } = this.resolve(m, r);
    const want = m.complete(lease, this.digest);
    checkWrite(m, r, lease, r.queue.complete(lease, this.digest), want, 'done');
    checkInvariants(m, r);
  }
  toString(): string {
    return `complete(${this.shown}, ${this.digest.slice(0, 8)}…)`;
  }
}

/** A worker's failed attempt routed by the recovery matrix, as a worker would report it. */
class FailCommand extends LeaseCommand {
  constructor(
    pick: LeasePick,
    readonly kind: 'transient' | 'permanent' | 'unknown-non-idempotent',
  ) {
    super(pick);
  }
  run(m: QueueModel, r: Real): void {
    const { lease, claimed } = this.resolve(m, r);
    if (this.kind === 'unknown-non-idempotent') {
      // Reconcile: the queue must not write anything; the caller has to ask the world first.
      const got = r.queue.fail(claimed, new UnknownOutcomeError('timed out after sending'), 'non_idempotent');
      expect(got).toEqual({ decision: { action: 'reconcile' }, write: null });
    } else if (this.kind === 'transient') {
      const want = m.retry(lease, lease.attempt);
      const got = r.queue.fail(claimed, new TransientError('503 from upstream'), 'none');
      expect(got.decision).toEqual({ action: 'retry' });
      checkWrite(m, r, lease, got.write!, want, 'retry');
    } else {
      const want = m.review(lease);
      const got = r.queue.fail(claimed, new PermanentError('403 forbidden'), 'none');
      expect(got.decision.action).toBe('review');
      checkWrite(m, r, lease, got.write!, want, 'review');
    }
    checkInvariants(m, r);
  }
  toString(): string {
    return `fail(${this.shown}, ${this.kind})`;
  }
}

class ReviewCommand extends LeaseCommand {
  run(m: QueueModel, r: Real): void {
    const { lease } = this.resolve(m, r);
    const want = m.review(lease);
    checkWrite(m, r, lease, r.queue.review(lease, 'worker asks a person to look'), want, 'review');
    checkInvariants(m, r);
  }
  toString(): string {
    return `review(${this.shown})`;
  }
}

class AdvanceCommand implements Cmd {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  run(m: QueueModel, r: Real): void {
    m.advance(this.ms);
    r.clock.advance(this.ms);
    // Time alone changes nothing in the store: expiry is acted on only by a sweep.
    checkInvariants(m, r);
  }
  toString(): string {
    return `advance(${this.ms} ms)`;
  }
}

class SweepCommand implements Cmd {
  check(): boolean {
    return true;
  }
  run(m: QueueModel, r: Real): void {
    const before = m.jobs.map((j) => j.status);
    m.sweep();
    const want = m.jobs.flatMap((j, i) => (before[i] === 'running' && j.status !== 'running' ? [{ jobId: j.id, to: j.status }] : []));
    expect(r.queue.sweepExpiredLeases()).toEqual(want);
    note(want.length > 0 ? 'coordinator sweep: released' : 'coordinator sweep: nothing');
    checkInvariants(m, r);
  }
  toString(): string {
    return 'sweepExpiredLeases()';
  }
}

class RequeueFromReviewCommand implements Cmd {
  private shown = '';
  constructor(readonly index: number) {}
  check(m: Readonly<QueueModel>): boolean {
    return m.jobs.length > 0;
  }
  run(m: QueueModel, r: Real): void {
    // Prefer a job in review (the interesting case); otherwise any job, which must be refused.
    const inReview = m.jobs.filter((j) => j.status === 'review');
    const pool = inReview.length > 0 && this.index % 4 !== 0 ? inReview : m.jobs;
    const job = pool[this.index % pool.length]!;
    this.shown = `job ${job.id}, was ${job.status}`;
    const want = m.requeueFromReview(job.id);
    note(want ? 'requeue: from review' : 'requeue: refused, not in review');
    expect(r.queue.requeueFromReview(job.id, 'operator', 'looked at it, run again')).toBe(want);
    checkInvariants(m, r);
  }
  toString(): string {
    return `requeueFromReview(${this.shown})`;
  }
}

const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

const commandArbs: fc.Arbitrary<Cmd>[] = [
  fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 1, max: 3 })).map(([k, n]) => new EnqueueCommand(k, n)),
  fc.constantFrom(...WORKERS).map((w) => new ClaimCommand(w)),
  fc.constantFrom(...WORKERS).map((w) => new ClaimCommand(w)), // claims drive everything else: weigh them double
  leasePick.map((p) => new HeartbeatCommand(p)),
  fc.tuple(leasePick, digest).map(([p, d]) => new CompleteCommand(p, d)),
  fc
    .tuple(leasePick, fc.constantFrom('transient', 'transient', 'permanent', 'unknown-non-idempotent') as fc.Arbitrary<FailCommand['kind']>)
    .map(([p, k]) => new FailCommand(p, k)),
  leasePick.map((p) => new ReviewCommand(p)),
  // Small steps (within a lease or a back-off), the exact expiry edge, and well past it.
  fc.integer({ min: 0, max: 3_000 }).map((ms) => new AdvanceCommand(ms)),
  fc.oneof(fc.constantFrom(EXPIRY, EXPIRY + 1), fc.integer({ min: EXPIRY + 1, max: 3 * EXPIRY })).map((ms) => new AdvanceCommand(ms)),
  fc.constant(null).map(() => new SweepCommand()),
  fc.nat().map((i) => new RequeueFromReviewCommand(i)),
];

const EXERCISED = [
  'enqueue: duplicate',
  'claim: none ready',
  'claim swept a lease -> retry',
  'claim swept a lease -> review',
  'heartbeat: -> running',
  'heartbeat: refused',
  'done: -> done',
  'done: refused',
  'retry: -> retry',
  'retry: -> review',
  'retry: refused',
  'review: -> review',
  'review: refused',
  'requeue: from review',
  'requeue: refused, not in review',
  'coordinator sweep: released',
];

describe('SqliteQueue against a model', () => {
  it('agrees with the model and the state machine after every command', () => {
    fc.assert(
      fc.property(fc.commands(commandArbs, { maxCommands: 80, size: 'max' }), (cmds) => {
        const clock = new ManualClock(CONFIG.startMs);
        const queue = SqliteQueue.open(':memory:', {
          clock,
          random: seededRandom(CONFIG.randomSeed),
          leaseMs: CONFIG.leaseMs,
          skewMarginMs: CONFIG.skewMarginMs,
          retryDelay: CONFIG.retryDelay,
        });
        try {
          fc.modelRun(() => ({ model: new QueueModel(CONFIG), real: { queue, clock, claims: [] } }), cmds);
        } finally {
          queue.close();
        }
      }),
      { numRuns: 300, seed: SEED },
    );
    if (process.env.QD_MODEL_STATS) console.log(Object.fromEntries([...seen].sort()));
    for (const label of EXERCISED) expect(seen.get(label) ?? 0, `never exercised: ${label}`).toBeGreaterThan(0);
  });
});
