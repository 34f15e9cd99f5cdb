import type { Clock } from '../../kernel/clock.js';
import { utc } from '../../kernel/clock.js';
import { DEFAULT_LEASE_MS, DEFAULT_SKEW_MARGIN_MS } from '../../kernel/defaults.js';
import { classifyError } from '../../kernel/job-errors.js';
import { type Random, seededRandom } from '../../kernel/random.js';
import { storableError } from '../../kernel/redact.js';
import type { ExpiredLeaseRelease } from '../../port/adapter.js';
import type { Incident, TxEntry, TxRow } from '../../port/checkpoint.js';
import { type RetryDelayPolicy, retryDelayMs, SEED_RETRY_DELAY } from '../../port/retry-delay.js';
import type { JobStatus } from '../../port/states.js';
import { decideRecovery, type EffectKind, type RecoveryDecision } from '../../saga/recovery.js';
import type { JobEvent, JobRow, Lease, LeaseWriteResult } from '../job.js';
import type { ExpiredLease } from '../lease-store.js';
import { type BusyPolicy, type BusyRetry, DEFAULT_BUSY_POLICY, retryBusy } from './busy.js';
import { appendTx } from './sql/append-tx.js';
import { beginCompensation } from './sql/begin-compensation.js';
import { type Claimer, claim } from './sql/claim.js';
import { claimCompensation } from './sql/claim-compensation.js';
import { complete } from './sql/complete.js';
import { completeAndClaim } from './sql/complete-and-claim.js';
import { type Enqueuer, enqueue } from './sql/enqueue.js';
import { expireLease } from './sql/expire-lease.js';
import { finishCompensation } from './sql/finish-compensation.js';
import { heartbeat } from './sql/heartbeat.js';
import { msUntilDue } from './sql/next-due.js';
import { readIncidents, readTx, recordIncident } from './sql/read-tx.js';
import { countByStatus, readAllEvents, readHistory, readJob, readJobs } from './sql/reads.js';
import { releaseExpired } from './sql/release-expired.js';
import { requeueFromReview } from './sql/requeue-from-review.js';
import { retry } from './sql/retry.js';
import { review } from './sql/review.js';
import { expiredLeases, sweepExpiredLeases } from './sql/sweep-expired-leases.js';
import { type LeaseWriter, writeUnderLease } from './sql/write-under-lease.js';
import { type Db, openStore, statement } from './store.js';

const DATA_VERSION = 'PRAGMA data_version';

const PROGRESS = 'SELECT (SELECT COALESCE(MAX(id), 0) FROM agent_job_events) AS e, (SELECT COALESCE(MAX(id), 0) FROM agent_tx_log) AS t';

/** How a queue connection behaves: its clock, its randomness, its leases and retries. */
export interface QueueOptions {
  clock: Clock;
  random: Random;
  /** How long a claim or a heartbeat holds a job. @default 30_000 */
  leaseMs?: number;
  /** A lease counts as expired only this long after its end, to absorb clock skew. @default 1_000 */
  skewMarginMs?: number;
  /** @default SEED_RETRY_DELAY */
  retryDelay?: RetryDelayPolicy;
  /** @default 3 */
  defaultMaxAttempts?: number;
  /** How it waits for the write lock other processes hold (./busy.ts). */
  busyWait?: {
    /** @default DEFAULT_BUSY_POLICY */
    policy?: Partial<BusyPolicy>;
    /**
     * The waits' jitter. @default a stream seeded by the process id: how often
     * the lock is taken is timing, never replayed, and two processes must not
     * draw the same waits and meet again.
     */
    random?: Random;
    /** @default blockThisThread */
    sleep?: (ms: number) => void;
  };
}

/** A job to enqueue under its idempotency key. */
export interface SqliteEnqueueRequest {
  key: string;
  action: string;
  /** Stored as given when a string (already JSON), else JSON-encoded. */
  payload: unknown;
  maxAttempts?: number;
}

/** A claimed job and the lease every later write must show. */
export interface Claimed {
  job: JobRow;
  lease: Lease;
}

/** The failure handling result: what was decided and whether the store took it. */
export interface FailResult {
  decision: RecoveryDecision;
  write: LeaseWriteResult | null;
}

/**
 * The reference idempotent queue of the queue sketch, built right, on one SQLite file.
 * Every operation is one short write transaction; every state change lands in
 * the history in the same transaction; every lease holder's write is fenced.
 */
export class SqliteQueue {
  readonly leaseMs: number;
  readonly skewMarginMs: number;
  readonly retryDelay: RetryDelayPolicy;
  readonly defaultMaxAttempts: number;
  /** How lease holders' writes reach the store; a broken variant swaps it. */
  protected readonly write: LeaseWriter = writeUnderLease;
  /** How a worker's claim reaches the store; a broken variant swaps it. */
  protected readonly claimer: Claimer = claim;
  /** Whether the coordinator's release of an expired lease is written to the history (a variant's claim may differ too). */
  protected readonly recordsReleases: boolean = true;
  /** How a producer's enqueue reaches the store; a broken variant swaps it. */
  protected readonly enqueuer: Enqueuer = enqueue;
  private readonly busyRetry: BusyRetry;

  constructor(
    readonly db: Db,
    readonly options: QueueOptions,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.skewMarginMs = options.skewMarginMs ?? DEFAULT_SKEW_MARGIN_MS;
    this.retryDelay = options.retryDelay ?? SEED_RETRY_DELAY;
    this.defaultMaxAttempts = options.defaultMaxAttempts ?? 3;
    const wait = options.busyWait ?? {};
    this.busyRetry = {
      policy: { ...DEFAULT_BUSY_POLICY, ...wait.policy },
      random: wait.random ?? seededRandom(process.pid),
      ...(wait.sleep ? { sleep: wait.sleep } : {}),
    };
    // The queue waits for the write lock itself, in short jittered waits (busy.ts), rather than in SQLite's handler.
    db.pragma(`busy_timeout = ${this.busyRetry.policy.sqliteTimeoutMs}`);
  }

  /** Runs one operation (one transaction, or a read), again after a jittered wait while another writer holds the lock. */
  protected busy<T>(name: string, operation: () => T): T {
    return retryBusy(name, operation, this.busyRetry);
  }

  /** Opens the queue on a store file, creating the schema if needed. */
  static open(file: string, options: QueueOptions): SqliteQueue {
    return new SqliteQueue(openStore(file), options);
  }

  private now(): number {
    return this.options.clock.now();
  }

  /** Adds a job unless its idempotency key is taken; `created` says which. */
  enqueue(request: SqliteEnqueueRequest): { created: boolean; jobId: number } {
    const payloadJson = typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload);
    const maxAttempts = request.maxAttempts ?? this.defaultMaxAttempts;
    return this.busy('enqueue', () =>
      this.enqueuer(this.db, { key: request.key, action: request.action, payloadJson, maxAttempts, at: utc(this.now()) }),
    );
  }

  /** Claims the oldest ready job for `workerId`, or null when none is ready. */
  claim(workerId: string, leaseMs = this.leaseMs): Claimed | null {
    // The time is read on each try: a claim that waited for the lock still gets its whole lease.
    const job = this.busy('claim', () => this.claimer(this.db, { workerId, now: this.now(), leaseMs, skewMarginMs: this.skewMarginMs }));
    return job ? { job, lease: { jobId: job.id, workerId, fence: job.lease_fence } } : null;
  }

  /**
   * What an idle worker needs to sleep until there may be work (src/port/wait-for-work.ts), or null for a
   * variant whose claim is not the reference's: what it may claim, and when, is its own, so its workers poll.
   */
  get wakeSignals(): { changeCount(): number; msUntilDue(): number | null } | null {
    if (this.claimer !== claim) return null;
    return {
      // Moves whenever another connection (another process) commits: no read of the tables, no lock taken. Read
      // before every claim, so from a statement prepared once (db.pragma() prepares one on each call).
      changeCount: () => (statement(this.db, DATA_VERSION).get() as { data_version: number }).data_version,
      msUntilDue: () => this.busy('msUntilDue', () => msUntilDue(this.db, this.now(), this.skewMarginMs)),
    };
  }

  /** Renews a held lease. */
  heartbeat(lease: Lease, leaseMs = this.leaseMs): LeaseWriteResult {
    return this.busy('heartbeat', () => heartbeat(this.db, lease, this.now(), leaseMs, this.write));
  }

  /** Marks a held job done; needs the verified result's digest. */
  complete(lease: Lease, resultDigest: string): LeaseWriteResult {
    return this.busy('complete', () => complete(this.db, lease, this.now(), resultDigest, this.write));
  }

  /**
   * Whether completeAndClaim may stand for a complete and the claim after it: on the reference itself, not on
   * a broken variant (a subclass), whose mistakes live in its separate writes and claim.
   */
  get batchesClaims(): boolean {
    return Object.getPrototypeOf(this) === SqliteQueue.prototype;
  }

  /** Marks a held job done and claims the next ready job for the same worker, in one transaction (sql/complete-and-claim.ts). */
  completeAndClaim(lease: Lease, resultDigest: string, workerId: string, leaseMs = this.leaseMs): { write: LeaseWriteResult; next: Claimed | null } {
    const input = { lease, resultDigest, workerId, leaseMs, skewMarginMs: this.skewMarginMs, now: () => this.now() };
    const { write, next } = this.busy('complete-and-claim', () => completeAndClaim(this.db, input));
    return { write, next: next ? { job: next, lease: { jobId: next.id, workerId, fence: next.lease_fence } } : null };
  }

  /** Releases a held job for a later attempt (or to review when none is left); the delay follows the attempt (the job's, when not given). */
  retry(lease: Lease, error: string, attempt: number = this.job(lease.jobId)?.attempts ?? 1): LeaseWriteResult {
    // Drawn once, outside the busy retries: how often the lock was taken must not move the jitter's stream.
    const delayMs = this.retryDelayFor(attempt);
    return this.busy('retry', () => retry(this.db, lease, { now: this.now(), delayMs, error }, this.write));
  }

  /** How long a job waits after failing `attempt`: the policy's delay, with jitter; a broken variant swaps it. */
  protected retryDelayFor(attempt: number): number {
    return retryDelayMs(attempt, this.retryDelay, this.options.random);
  }

  /** Sends a held job to review with a reason: a failure for a person, or a prepared step awaiting approval. */
  review(lease: Lease, reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): LeaseWriteResult {
    const given = error === undefined ? {} : { error };
    return this.busy('review', () => review(this.db, lease, { now: this.now(), reason, outcome, ...given }, this.write));
  }

  /**
   * Routes a failed attempt by the recovery matrix. A `reconcile` decision is
   * returned without a write: the caller, who can ask the world, must settle it
   * (or send the job to review). Errors are redacted before they are stored.
   */
  fail(claimed: Claimed, error: unknown, effect: EffectKind, knownSecrets: readonly string[] = []): FailResult {
    const decision = decideRecovery(classifyError(error), effect);
    const text = storableError(error, knownSecrets);
    switch (decision.action) {
      case 'retry':
        return { decision, write: this.retry(claimed.lease, text, claimed.job.attempts) };
      case 'review':
        return { decision, write: this.review(claimed.lease, decision.reason, text) };
      case 'reconcile':
        return { decision, write: null };
      default: {
        const unreachable: never = decision;
        throw new Error(`unknown decision ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** Hands a held job whose plan failed for good to the coordinator for compensation. */
  beginCompensation(lease: Lease, reason: string, error: string): LeaseWriteResult {
    return this.busy('beginCompensation', () => beginCompensation(this.db, lease, { now: this.now(), reason, error }, this.write));
  }

  /** The coordinator takes the oldest compensating job, or null. */
  claimCompensation(coordinatorId: string, leaseMs = this.leaseMs): Claimed | null {
    const job = this.busy('claimCompensation', () =>
      claimCompensation(this.db, { coordinatorId, now: this.now(), leaseMs, skewMarginMs: this.skewMarginMs }),
    );
    return job ? { job, lease: { jobId: job.id, workerId: coordinatorId, fence: job.lease_fence } } : null;
  }

  /** Ends a saga in review: compensated, or a failed compensation for manual recovery. */
  finishCompensation(lease: Lease, outcome: 'compensated' | 'compensation_failed', reason: string): LeaseWriteResult {
    return this.busy('finishCompensation', () => finishCompensation(this.db, lease, { now: this.now(), outcome, reason }, this.write));
  }

  /** Takes back expired leases now (claims do this too); returns the jobs released. */
  sweepExpiredLeases(by: 'worker' | 'coordinator' = 'coordinator', who: string | null = null) {
    return this.busy('sweepExpiredLeases', () =>
      this.db
        .transaction(() => sweepExpiredLeases(this.db, { now: this.now(), skewMarginMs: this.skewMarginMs, actor: by, worker: who }))
        .immediate(),
    );
  }

  /** Running jobs whose lease expired, for the coordinator's reconciling sweep. */
  expiredLeases(): JobRow[] {
    return this.busy('expiredLeases', () => expiredLeases(this.db, this.now(), this.skewMarginMs));
  }

  /** Takes one expired lease back if it is still the same one, committing `checkpoint` with it (the coordinator's sweep). */
  releaseExpired(job: ExpiredLease, release: ExpiredLeaseRelease, by: string, checkpoint?: TxEntry): boolean {
    return this.busy('releaseExpired', () =>
      releaseExpired(this.db, job, release, { by, now: this.now(), skewMarginMs: this.skewMarginMs, checkpoint, recorded: this.recordsReleases }),
    );
  }

  /** Makes a held lease expire now. */
  expireLease(jobId: number): void {
    this.busy('expireLease', () => expireLease(this.db, jobId));
  }

  /** A person's decision to run a job in review again (with `checkpoint`, an approval, committed with it). */
  requeueFromReview(jobId: number, by: string, note: string, checkpoint?: TxEntry): boolean {
    return this.busy('requeueFromReview', () => requeueFromReview(this.db, { jobId, by, note, now: this.now(), checkpoint }));
  }

  /** Appends a saga checkpoint if `lease` still holds the job. */
  appendTx(lease: Lease, entry: TxEntry): boolean {
    return this.busy('appendTx', () => appendTx(this.db, lease, entry, this.now()));
  }

  /** The saga's checkpoints (of one job, or all). */
  txLog(jobId?: number): TxRow[] {
    return this.busy('txLog', () => readTx(this.db, jobId));
  }

  recordIncident(jobId: number, stepId: string, error: string): void {
    this.busy('recordIncident', () => recordIncident(this.db, { jobId, stepId, error, at: utc(this.now()) }));
  }

  incidents(jobId?: number): Incident[] {
    return this.busy('incidents', () => readIncidents(this.db, jobId));
  }

  /** Changes whenever a history row or a checkpoint is written. */
  progress(): string {
    const row = this.busy('progress', () => statement(this.db, PROGRESS).get() as { e: number; t: number });
    return `${row.e}:${row.t}`;
  }

  job(jobId: number): JobRow | undefined {
    return this.busy('job', () => readJob(this.db, jobId));
  }

  jobs(): JobRow[] {
    return this.busy('jobs', () => readJobs(this.db));
  }

  history(jobId: number): JobEvent[] {
    return this.busy('history', () => readHistory(this.db, jobId));
  }

  events(): JobEvent[] {
    return this.busy('events', () => readAllEvents(this.db));
  }

  counts(): Record<JobStatus, number> {
    return this.busy('counts', () => countByStatus(this.db));
  }

  close(): void {
    this.db.close();
  }
}
