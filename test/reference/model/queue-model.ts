/*
 * A pure, in-memory model of SqliteQueue: what the store should hold after each
 * operation, written from the state machine (src/port/states.ts) and the brief,
 * not from the SQL. Times are kept as milliseconds; the store keeps fixed-width
 * ISO strings, whose order is the same.
 */
import { type Random, randomInt, seededRandom } from '../../../src/kernel/random.js';
import type { JobStatus } from '../../../src/port/states.js';

export interface ModelConfig {
  startMs: number;
  leaseMs: number;
  skewMarginMs: number;
  retryDelay: { baseMs: number; capMs: number; jitterMs: number };
  randomSeed: number;
}

export interface ModelJob {
  id: number;
  key: string;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  leasedBy: string | null;
  leaseUntil: number | null;
  nextRunAt: number;
  createdAt: number;
  fence: number;
  resultDigest: string | null;
}

/** A lease as a worker remembers it after a claim, with the attempt it was claimed as. */
export interface ModelLease {
  jobId: number;
  workerId: string;
  fence: number;
  attempt: number;
}

/** What a write under a lease should do: applied (to a status) or refused. */
/** A write the model expects applied (a renewal says until when, as the store writes it), or refused. */
export type WriteOutcome = { ok: true; status: JobStatus; leaseUntil?: string } | { ok: false };

export class QueueModel {
  now: number;
  readonly jobs: ModelJob[] = [];
  /** Every lease ever handed out, live or stale: stale ones are what the fence must refuse. */
  readonly leases: ModelLease[] = [];
  /** Rows agent_job_events should hold: one per transition and one per refused write. */
  events = 0;
  // The queue draws its retry jitter from seededRandom(seed); a twin with the same
  // seed predicts it, provided the model draws exactly when the queue does.
  private readonly random: Random;

  constructor(readonly config: ModelConfig) {
    this.now = config.startMs;
    this.random = seededRandom(config.randomSeed);
  }

  job(id: number): ModelJob {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) throw new Error(`model has no job ${id}`);
    return job;
  }

  /**
   * `newId` is the id the store handed out: the model does not predict it, because
   * SQLite's AUTOINCREMENT also spends an id on a duplicate key's ignored insert.
   * Ids are opaque; only their order (the claim tie-break) and stability matter.
   */
  enqueue(key: string, maxAttempts: number, newId: number): { created: boolean; jobId: number } {
    const existing = this.jobs.find((j) => j.key === key);
    if (existing) return { created: false, jobId: existing.id };
    const job: ModelJob = {
      id: newId,
      key,
      status: 'pending',
      attempts: 0,
      maxAttempts,
      leasedBy: null,
      leaseUntil: null,
      nextRunAt: this.now,
      createdAt: this.now,
      fence: 0,
      resultDigest: null,
    };
    this.jobs.push(job);
    this.events += 1;
    return { created: true, jobId: job.id };
  }

  advance(ms: number): void {
    this.now += ms;
  }

  /** Expired = past its end by more than the skew margin (strictly); back to retry, or review if no attempts are left. */
  sweep(): void {
    const cutoff = this.now - this.config.skewMarginMs;
    for (const job of this.jobs) {
      if (job.status !== 'running' || job.leaseUntil === null || !(job.leaseUntil < cutoff)) continue;
      job.status = job.attempts >= job.maxAttempts ? 'review' : 'retry';
      job.leasedBy = null;
      job.leaseUntil = null;
      // Released now, so a swept job is ready again at once (no back-off for a lost worker).
      job.nextRunAt = this.now;
      this.events += 1;
    }
  }

  /** Sweep, then lease the oldest ready job; null when none is ready. */
  claim(workerId: string): ModelLease | null {
    this.sweep();
    const ready = this.jobs
      .filter((j) => (j.status === 'pending' || j.status === 'retry') && j.nextRunAt <= this.now && j.attempts < j.maxAttempts)
      .sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
    const job = ready[0];
    if (!job) return null;
    job.status = 'running';
    job.leasedBy = workerId;
    job.leaseUntil = this.now + this.config.leaseMs;
    job.attempts += 1;
    job.fence += 1;
    this.events += 1;
    const lease = { jobId: job.id, workerId, fence: job.fence, attempt: job.attempts };
    this.leases.push(lease);
    return lease;
  }

  /**
   * The fence: job, worker and claim must all still match. Expiry alone does not
   * void a lease; only a sweep (which runs inside claim) takes the job back.
   */
  holds(lease: Pick<ModelLease, 'jobId' | 'workerId' | 'fence'>): boolean {
    const job = this.job(lease.jobId);
    return job.status === 'running' && job.leasedBy === lease.workerId && job.fence === lease.fence;
  }

  heartbeat(lease: ModelLease): WriteOutcome {
    if (!this.holds(lease)) return this.refused();
    const until = this.now + this.config.leaseMs;
    this.job(lease.jobId).leaseUntil = until;
    return { ok: true, status: 'running', leaseUntil: new Date(until).toISOString() }; // no state change, so no history row
  }

  complete(lease: ModelLease, digest: string): WriteOutcome {
    if (!this.holds(lease)) return this.refused();
    const job = this.job(lease.jobId);
    job.resultDigest = digest;
    return this.release(job, 'done');
  }

  /**
   * A failed attempt to run again later; with no attempts left it goes to review.
   * `attempt` is the one the worker claimed, which sets the back-off.
   */
  retry(lease: ModelLease, attempt: number): WriteOutcome {
    // The queue computes the delay before it looks at the lease, so even a refused
    // retry consumes a random draw; the twin must draw too or it falls out of step.
    const { baseMs, capMs, jitterMs } = this.config.retryDelay;
    const delay = Math.min(baseMs * 2 ** Math.max(attempt - 1, 0), capMs) + randomInt(this.random, 0, jitterMs);
    if (!this.holds(lease)) return this.refused();
    const job = this.job(lease.jobId);
    job.nextRunAt = this.now + delay;
    return this.release(job, job.attempts >= job.maxAttempts ? 'review' : 'retry');
  }

  review(lease: ModelLease): WriteOutcome {
    if (!this.holds(lease)) return this.refused();
    return this.release(this.job(lease.jobId), 'review');
  }

  /** The human action, the only way out of review; it grants one more attempt if none is left. */
  requeueFromReview(jobId: number): boolean {
    const job = this.job(jobId);
    if (job.status !== 'review') return false;
    job.status = 'pending';
    job.nextRunAt = this.now;
    job.maxAttempts = Math.max(job.maxAttempts, job.attempts + 1);
    this.events += 1;
    return true;
  }

  private release(job: ModelJob, to: JobStatus): WriteOutcome {
    job.status = to;
    job.leasedBy = null;
    job.leaseUntil = null;
    this.events += 1;
    return { ok: true, status: to };
  }

  private refused(): WriteOutcome {
    this.events += 1; // a refused write is recorded, never dropped
    return { ok: false };
  }
}
