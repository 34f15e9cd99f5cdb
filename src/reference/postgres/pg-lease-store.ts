import type pg from 'pg';
import { inTransaction, openPool } from '../../adapters/pg/pool.js';
import type { Queryable } from '../../adapters/pg/queryable.js';
import { DEFAULT_LEASE_MS, DEFAULT_SKEW_MARGIN_MS } from '../../kernel/defaults.js';
import type { JobStatus } from '../../kernel/vocabulary.js';
import type { ExpiredLeaseRelease } from '../../port/adapter.js';
import type { Incident, TxEntry, TxRow } from '../../port/checkpoint.js';
import { type RetryDelayPolicy, retryDelayMs, SEED_RETRY_DELAY } from '../../port/retry-delay.js';
import { assertDigest } from '../digest.js';
import type { JobEvent, JobRow, Lease, LeaseWriteResult } from '../job.js';
import type { LeaseStore, LeaseStoreOptions } from '../lease-store.js';
import { PgWakeSignals } from './pg-wake-signals.js';
import { appendTx } from './sql/append-tx.js';
import { beginCompensation } from './sql/begin-compensation.js';
import { type ClaimInput, claimAfterSweep, claimOne } from './sql/claim.js';
import { claimCompensation } from './sql/claim-compensation.js';
import { complete, completeOne } from './sql/complete.js';
import { completeAndClaimOne } from './sql/complete-and-claim.js';
import { enqueue } from './sql/enqueue.js';
import { expireLease } from './sql/expire-lease.js';
import { finishCompensation } from './sql/finish-compensation.js';
import { heartbeat } from './sql/heartbeat.js';
import { msUntilDue } from './sql/next-due.js';
import { readIncidents, readTx, recordIncident } from './sql/read-tx.js';
import { countByStatus, readAllEvents, readJobs, readProgress } from './sql/reads.js';
import { releaseExpired } from './sql/release-expired.js';
import { requeueFromReview } from './sql/requeue-from-review.js';
import { retry } from './sql/retry.js';
import { review } from './sql/review.js';
import { type ExpiredJob, expiredLeases } from './sql/sweep-expired-leases.js';

/** Where a queue lives: a server, and the schema provisioned for it (provision.ts). */
export interface PgQueueLocation {
  url: string;
  schema: string;
}

/**
 * Connections per store. A worker renews its lease on a timer while its
 * handler writes checkpoints: two transactions of one process can be open at
 * once, and must not share a connection.
 */
export const POOL_SIZE = 4;

/** The shortest wait before the server ends a session idle in its transaction: any shorter, and a worker merely starved by a busy machine loses its writes. */
const MIN_IDLE_IN_TRANSACTION_MS = 1_000;

/**
 * The reference queue on PostgreSQL, one schema per queue. Every operation is
 * one transaction (or one statement) at READ COMMITTED, on a connection of its
 * own; lease holders' writes are guarded by job, holder and epoch under a row
 * lock. Every time is the server's: clock_timestamp() for what is written and
 * compared, so processes with skewed clocks agree; `options.clock` is ignored.
 * Retry delays are computed here (the policy and its jitter from
 * `options.random`) and added to the server's clock.
 */
export class PgLeaseStore implements LeaseStore {
  readonly leaseMs: number;
  readonly skewMarginMs: number;
  readonly retryDelay: RetryDelayPolicy;
  /**
   * What lets an idle worker or coordinator sleep until a write notifies it (./pg-wake-signals.ts), or null for a
   * variant whose claim is not the reference's: what it may claim, and when, is its own, so its workers poll.
   */
  readonly wakeSignals: PgWakeSignals | null;
  /** Done and the next claim in one statement, for the reference's own claim and complete (undefined for a variant). */
  readonly completeAndClaim: LeaseStore['completeAndClaim'];
  private readonly pool: pg.Pool;
  private closing: Promise<void> | undefined;

  constructor(
    readonly location: PgQueueLocation,
    private readonly options: LeaseStoreOptions,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.skewMarginMs = options.skewMarginMs ?? DEFAULT_SKEW_MARGIN_MS;
    this.retryDelay = options.retryDelay ?? SEED_RETRY_DELAY;
    // A worker frozen (SIGSTOP, a VM pause) between its heartbeat's UPDATE and COMMIT would hold the job's row lock,
    // and the sweep that must take its expired lease back would wait on it for as long as the freeze lasts: found by
    // zombie-complete. The server ends such a session once it sits idle in its transaction for a lease.
    this.pool = openPool(location.url, location.schema, POOL_SIZE, { idleInTransactionMs: Math.max(this.leaseMs, MIN_IDLE_IN_TRANSACTION_MS) });
    // `this.claim` is a subclass's where a variant overrides it (the SQLite queue's `claimer !== claim`). The
    // connection listens only once the count is first read: a producer never opens one.
    this.wakeSignals =
      this.claim === PgLeaseStore.prototype.claim ? new PgWakeSignals(location, () => msUntilDue(this.pool, this.skewMarginMs)) : null;
    // Joined only where both are the reference's: a variant that rewrites either keeps them apart, as it wrote them.
    this.completeAndClaim =
      this.claim === PgLeaseStore.prototype.claim && this.complete === PgLeaseStore.prototype.complete
        ? (lease, digest, workerId) => this.completeThenClaim(lease, digest, workerId)
        : undefined;
  }

  protected transaction<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  enqueue(request: { key: string; action: string; payloadJson: string; maxAttempts: number }): Promise<{ created: boolean; jobId: number }> {
    return this.transaction((db) => enqueue(db, request));
  }

  /**
   * The oldest ready job under a new epoch: in one statement (./sql/claim.ts) unless expired leases wait, then in a
   * transaction that sweeps them back first, so the oldest ready job is claimed first either way.
   */
  async claim(workerId: string): Promise<JobRow | null> {
    const input = this.claimInput(workerId);
    const fast = await claimOne(this.pool, input);
    return fast.sweepDue ? this.transaction((db) => claimAfterSweep(db, input)) : fast.job;
  }

  private claimInput(workerId: string): ClaimInput {
    return { workerId, leaseMs: this.leaseMs, skewMarginMs: this.skewMarginMs };
  }

  heartbeat(lease: Lease): Promise<LeaseWriteResult> {
    return this.transaction((db) => heartbeat(db, lease, this.leaseMs));
  }

  async complete(lease: Lease, digest: string): Promise<LeaseWriteResult> {
    // Before a connection is taken: done is never written without a digest.
    assertDigest(digest);
    // One statement where the lease holds (./sql/complete.ts); anything else, the refusal included, as before.
    if (await completeOne(this.pool, lease, digest)) return { ok: true, status: 'done' };
    return this.transaction((db) => complete(db, lease, digest));
  }

  /** Done, then the holder's next claim, in one statement (./sql/complete-and-claim.ts); what it cannot write alone, as before. */
  private async completeThenClaim(lease: Lease, digest: string, workerId: string): Promise<{ write: LeaseWriteResult; next: JobRow | null }> {
    const input = this.claimInput(workerId);
    const answer = await completeAndClaimOne(this.pool, lease, digest, input);
    const write: LeaseWriteResult = answer.done ? { ok: true, status: 'done' } : await this.transaction((db) => complete(db, lease, digest));
    return { write, next: answer.sweepDue ? await this.transaction((db) => claimAfterSweep(db, input)) : answer.next };
  }

  retry(lease: Lease, error: string): Promise<LeaseWriteResult> {
    const delayMs = (attempt: number) => retryDelayMs(attempt, this.retryDelay, this.options.random);
    return this.transaction((db) => retry(db, lease, { delayMs, error }));
  }

  review(lease: Lease, reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): Promise<LeaseWriteResult> {
    return this.transaction((db) => review(db, lease, { reason, error, outcome }));
  }

  beginCompensation(lease: Lease, reason: string, error: string): Promise<LeaseWriteResult> {
    return this.transaction((db) => beginCompensation(db, lease, { reason, error }));
  }

  async claimCompensation(coordinatorId: string): Promise<JobRow | null> {
    return claimCompensation(this.pool, { coordinatorId, leaseMs: this.leaseMs, skewMarginMs: this.skewMarginMs });
  }

  finishCompensation(lease: Lease, outcome: 'compensated' | 'compensation_failed', reason: string): Promise<LeaseWriteResult> {
    return this.transaction((db) => finishCompensation(db, lease, { outcome, reason }));
  }

  expiredLeases(): Promise<JobRow[]> {
    return expiredLeases(this.pool, this.skewMarginMs);
  }

  /** Takes `job.id`, `job.lease_fence` and `job.attempts` of the job: any JobRow will do. */
  releaseExpired(job: ExpiredJob, release: ExpiredLeaseRelease, by: string, checkpoint?: TxEntry): Promise<boolean> {
    return this.transaction((db) => releaseExpired(db, job, release, { by, skewMarginMs: this.skewMarginMs, checkpoint }));
  }

  expireLease(jobId: number): Promise<void> {
    // A transaction, for its notification to go out when the update commits (./sql/wake.ts).
    return this.transaction((db) => expireLease(db, jobId));
  }

  requeueFromReview(jobId: number, by: string, note: string, checkpoint?: TxEntry): Promise<boolean> {
    return this.transaction((db) => requeueFromReview(db, { jobId, by, note, checkpoint }));
  }

  appendTx(lease: Lease, entry: TxEntry): Promise<boolean> {
    return appendTx(this.pool, lease, entry);
  }

  readTx(jobId?: number): Promise<TxRow[]> {
    return readTx(this.pool, jobId);
  }

  recordIncident(jobId: number, stepId: string, error: string): Promise<void> {
    return recordIncident(this.pool, { jobId, stepId, error });
  }

  incidents(jobId?: number): Promise<Incident[]> {
    return readIncidents(this.pool, jobId);
  }

  jobs(): Promise<JobRow[]> {
    return readJobs(this.pool);
  }

  events(): Promise<JobEvent[]> {
    return readAllEvents(this.pool);
  }

  counts(): Promise<Record<JobStatus, number>> {
    return countByStatus(this.pool);
  }

  progress(): Promise<string> {
    return readProgress(this.pool);
  }

  /** Ends the pool (waiting for the connections in use to come back) and the LISTEN connection; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= Promise.all([this.pool.end(), this.wakeSignals?.close()]).then(() => undefined);
    return this.closing;
  }
}
