import type { Random } from '../kernel/random.js';
import type { JobStatus } from '../kernel/vocabulary.js';
import type { ExpiredLeaseRelease } from '../port/adapter.js';
import type { Incident, TxEntry, TxRow } from '../port/checkpoint.js';
import type { RetryDelayPolicy } from '../port/retry-delay.js';
import type { WakeSignals } from '../port/wake-signals.js';
import type { JobEvent, JobRow, Lease, LeaseWriteResult } from './job.js';

/*
 * The reference queue's operations, as every store built to its design offers
 * them (the SQLite file, PostgreSQL): one shape, so the reference adapter, its
 * worker loop and the behaviour tests are written once. The rules each
 * operation keeps are the reference's (src/port/states.ts for the machine):
 *   - every operation is atomic; every state change lands in the history in
 *     the same transaction; a claim bumps the job's epoch (lease_fence);
 *   - a claim first takes back every expired lease (to retry, or to review on
 *     the last attempt), then takes the oldest ready job (pending or retry,
 *     next_run_at reached, attempts left), counting the attempt;
 *   - every write of a lease holder is guarded by job, holder and epoch; one
 *     the guard refuses changes nothing, is recorded as a `refused` event, and
 *     is returned as refused, never dropped silently;
 *   - a checkpoint of the saga log is guarded the same way (`appendTx`), and
 *     carries the writer's epoch and the job's attempt;
 *   - nothing leaves review but a person's requeue.
 */

/** What releasing an expired lease needs to know of it: which job, under which epoch, at which attempt. */
export type ExpiredLease = Pick<JobRow, 'id' | 'lease_fence' | 'attempts'>;

/** How a store behaves for the process that opened it. */
export interface LeaseStoreOptions {
  /** The caller's clock; a store that takes its times from its server ignores it (and says so). */
  clock: { now(): number };
  random: Random;
  /** How long a claim or a heartbeat holds a job. @default 30_000 */
  leaseMs?: number;
  /** A lease counts as expired only this long after its end. @default 1_000 */
  skewMarginMs?: number;
  /** @default SEED_RETRY_DELAY */
  retryDelay?: RetryDelayPolicy;
}

/** The reference queue's operations, on whatever store holds it. */
export interface LeaseStore {
  /** Adds a job unless its key is taken (one statement decides: a unique key, never a look-up first). */
  enqueue(request: { key: string; action: string; payloadJson: string; maxAttempts: number }): Promise<{ created: boolean; jobId: number }>;
  /** Sweeps expired leases, then claims the oldest ready job for `workerId` under a new epoch; null when none is ready. */
  claim(workerId: string): Promise<JobRow | null>;
  /** Renews a held lease by leaseMs. */
  heartbeat(lease: Lease): Promise<LeaseWriteResult>;
  /** Done, with the verified result's digest (64 lowercase hex, else MissingDigestError); outcome `done`. */
  complete(lease: Lease, digest: string): Promise<LeaseWriteResult>;
  /**
   * Optional: done, then the next claim for the same worker, in one transaction (`next` null: nothing was
   * ready). Absent where the two must stay apart (a broken variant's writes, a store that cannot join them).
   */
  completeAndClaim?: ((lease: Lease, digest: string, workerId: string) => Promise<{ write: LeaseWriteResult; next: JobRow | null }>) | undefined;
  /** To retry after the policy's delay for this attempt (with jitter from `random`); to review (outcome `review`) when no attempt is left. */
  retry(lease: Lease, error: string): Promise<LeaseWriteResult>;
  /** To review with a reason; outcome `review`, or `awaiting_approval` for a prepared step that waits for a person. */
  review(lease: Lease, reason: string, error?: string, outcome?: 'review' | 'awaiting_approval'): Promise<LeaseWriteResult>;
  /** To compensating, lease released: the coordinator takes it from there. */
  beginCompensation(lease: Lease, reason: string, error: string): Promise<LeaseWriteResult>;
  /** The oldest compensating job nobody holds (or this coordinator held, or whose holder's lease expired), under a new epoch. */
  claimCompensation(coordinatorId: string): Promise<JobRow | null>;
  /** compensating to review, with the saga's outcome and reason. */
  finishCompensation(lease: Lease, outcome: 'compensated' | 'compensation_failed', reason: string): Promise<LeaseWriteResult>;
  /** Optional: lets idle workers and the coordinator sleep until there may be work (null: they poll). */
  wakeSignals?: WakeSignals | null;
  /** Running jobs whose lease expired by more than the skew margin. */
  expiredLeases(): Promise<JobRow[]>;
  /**
   * Takes one expired lease back, if the job is still running under the same
   * epoch with its lease still expired; with a checkpoint (written by `by`
   * under that epoch), both commit together or neither does. The event's actor
   * is the coordinator. True when it released the job.
   */
  releaseExpired(job: ExpiredLease, release: ExpiredLeaseRelease, by: string, checkpoint?: TxEntry): Promise<boolean>;
  /** Moves a running or compensating job's lease end into the past (tests and drills: "its holder stopped long ago"). */
  expireLease(jobId: number): Promise<void>;
  /**
   * A person sends a job in review back to pending, one more attempt allowed,
   * recorded in the history (actor human) and as a `requeue` checkpoint (and,
   * given one, `checkpoint` too), all in one transaction. False when the job is not in review.
   */
  requeueFromReview(jobId: number, by: string, note: string, checkpoint?: TxEntry): Promise<boolean>;
  /** Appends a checkpoint if `lease` still holds the job (running or compensating, same holder, same epoch); false if not. */
  appendTx(lease: Lease, entry: TxEntry): Promise<boolean>;
  /** Every checkpoint (of one job, or all) in order. */
  readTx(jobId?: number): Promise<TxRow[]>;
  recordIncident(jobId: number, stepId: string, error: string): Promise<void>;
  incidents(jobId?: number): Promise<Incident[]>;
  /** Every job, oldest first. */
  jobs(): Promise<JobRow[]>;
  /** The whole history, in order. */
  events(): Promise<JobEvent[]>;
  counts(): Promise<Record<JobStatus, number>>;
  /** Changes whenever a history row or a checkpoint is written (e.g. "events:checkpoints" counts). */
  progress(): Promise<string>;
  close(): Promise<void>;
}
