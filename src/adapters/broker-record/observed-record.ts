import type Database from 'better-sqlite3';
import { type Clock, utc } from '../../kernel/clock.js';
import { openSqliteFile } from '../../kernel/sqlite-file.js';
import type { Actor, JobOutcome, JobStatus } from '../../kernel/vocabulary.js';
import type { JobSnapshot, QueueSnapshot, Transition } from '../../port/snapshot.js';

/*
 * What the drill's processes saw a broker do, written down as it happened: the
 * drill's view of each job on a queue that keeps no job table. A broker holds
 * a message in a queue or a stream, then hands it to a consumer (where nobody
 * else can see it), then forgets it on an ack or moves it to a dead-letter
 * queue. So the adapter records, in one SQLite transaction each, the
 * producer's publish, each delivery the broker made, and how it ended; the
 * judge reads this record as the queue's history. Nothing here decides
 * anything for the broker: no write is refused by the record, no job taken
 * back. A write the broker refused is recorded as refused; one it accepted
 * from a holder it had already replaced is recorded as it happened, and the
 * judge sees who wrote it. The file lives beside the run, like the saga's.
 */

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  action TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  outcome TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  holder TEXT,
  lease_until TEXT,
  epoch INTEGER NOT NULL DEFAULT 0,
  next_run_at TEXT,
  last_error TEXT,
  review_reason TEXT,
  result_digest TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  made INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS history (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  worker TEXT,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL,
  retry_delay_ms INTEGER
);`;

/** A job as the record first hears of it (from its producer, or from a worker that got it before the producer wrote). */
export interface NewJob {
  id: string;
  key: string;
  action: string;
  payload: string;
  maxAttempts: number;
}

/** What can change in a job with a step. */
export type JobChanges = Partial<
  Pick<
    JobSnapshot,
    'outcome' | 'attempts' | 'maxAttempts' | 'holder' | 'leaseUntil' | 'epoch' | 'nextRunAt' | 'lastError' | 'reviewReason' | 'resultDigest'
  >
>;

/** One change the broker made: the job moves to `to` (a history entry when its state changes) with `set` applied. */
export interface RecordStep {
  to: JobStatus;
  worker: string | null;
  actor: Actor;
  reason: string;
  retryDelayMs?: number;
  set?: JobChanges;
}

/** A stale holder's write the broker refused, for the history. */
export interface RefusedWrite {
  to: JobStatus;
  /** The stale holder's epoch (the entry's attempt and from-state are the job's as it stands, as the reference records them). */
  epoch: number;
  worker: string;
  reason: string;
}

interface JobRow {
  id: string;
  key: string;
  action: string;
  payload: string;
  status: JobStatus;
  outcome: JobOutcome | null;
  attempts: number;
  max_attempts: number;
  holder: string | null;
  lease_until: string | null;
  epoch: number;
  next_run_at: string | null;
  last_error: string | null;
  review_reason: string | null;
  result_digest: string | null;
  created_at: string;
  updated_at: string;
}

interface HistoryRow {
  seq: number;
  job_id: string;
  kind: 'transition' | 'refused';
  from_status: JobStatus | null;
  to_status: JobStatus;
  attempt: number;
  epoch: number;
  worker: string | null;
  actor: Actor;
  reason: string;
  at: string;
  retry_delay_ms: number | null;
}

function jobOf(row: JobRow): JobSnapshot {
  return {
    id: row.id,
    key: row.key,
    action: row.action,
    payload: row.payload,
    status: row.status,
    outcome: row.outcome,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    holder: row.holder,
    leaseUntil: row.lease_until,
    epoch: row.epoch,
    nextRunAt: row.next_run_at,
    lastError: row.last_error,
    reviewReason: row.review_reason,
    resultDigest: row.result_digest,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function transitionOf(row: HistoryRow): Transition {
  return {
    seq: row.seq,
    jobId: row.job_id,
    kind: row.kind,
    from: row.from_status,
    to: row.to_status,
    attempt: row.attempt,
    epoch: row.epoch,
    worker: row.worker,
    actor: row.actor,
    reason: row.reason,
    at: row.at,
    ...(row.retry_delay_ms === null ? {} : { retryDelayMs: row.retry_delay_ms }),
  };
}

const COLUMN: Record<keyof JobChanges, keyof JobRow> = {
  outcome: 'outcome',
  attempts: 'attempts',
  maxAttempts: 'max_attempts',
  holder: 'holder',
  leaseUntil: 'lease_until',
  epoch: 'epoch',
  nextRunAt: 'next_run_at',
  lastError: 'last_error',
  reviewReason: 'review_reason',
  resultDigest: 'result_digest',
};

const INSERT_HISTORY = `INSERT INTO history (job_id, kind, from_status, to_status, attempt, epoch, worker, actor, reason, at, retry_delay_ms)
VALUES (@jobId, @kind, @from, @to, @attempt, @epoch, @worker, @actor, @reason, @at, @retryDelayMs)`;

/** The record of one drill's jobs on a broker: every process of the drill opens its own connection to the file. */
export class ObservedRecord {
  private constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
  ) {}

  static open(file: string, clock: Clock): ObservedRecord {
    return new ObservedRecord(openSqliteFile(file, { schemaSql: SCHEMA_SQL, synchronous: 'NORMAL' }), clock);
  }

  private now(): string {
    return utc(this.clock.now());
  }

  /**
   * Records a job the first time anyone tells of it; the id is the broker's
   * message id, so the producer and a worker that got the message first agree.
   * True when this call made it.
   */
  addJob(job: NewJob, by: Actor = 'producer'): boolean {
    const at = this.now();
    return this.db.transaction(() => {
      const made =
        this.db
          .prepare(
            `INSERT OR IGNORE INTO jobs (id, key, action, payload, status, max_attempts, next_run_at, created_at, updated_at, made)
             VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, (SELECT COUNT(*) FROM jobs))`,
          )
          .run(job.id, job.key, job.action, job.payload, job.maxAttempts, at, at, at).changes === 1;
      if (made) {
        this.db.prepare(INSERT_HISTORY).run({
          jobId: job.id,
          kind: 'transition',
          from: null,
          to: 'pending',
          attempt: 0,
          epoch: 0,
          worker: null,
          actor: by,
          reason: 'published',
          at,
          retryDelayMs: null,
        });
      }
      return made;
    })();
  }

  job(id: string): JobSnapshot | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row && jobOf(row);
  }

  /** How many jobs are in `status` now. */
  countIn(status: JobStatus): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE status = ?').get(status) as { n: number }).n;
  }

  /**
   * Applies the steps `decide` returns for the job as it is now, in one
   * transaction (no other process's change lands between the read and the
   * writes). Returns the job as it ends, or undefined when the record has no such job.
   */
  change(id: string, decide: (job: JobSnapshot) => readonly RecordStep[]): JobSnapshot | undefined {
    return this.db
      .transaction(() => {
        let job = this.job(id);
        if (!job) return undefined;
        for (const step of decide(job)) {
          const at = this.now();
          const before = job.status;
          job = { ...job, ...step.set, status: step.to, updatedAt: at };
          const sets = Object.keys(step.set ?? {}).map((field) => `${COLUMN[field as keyof JobChanges]} = @${field}`);
          this.db
            .prepare(`UPDATE jobs SET ${[...sets, 'status = @status', 'updated_at = @updatedAt'].join(', ')} WHERE id = @id`)
            .run({ ...step.set, status: step.to, updatedAt: at, id });
          if (step.to !== before || step.actor === 'human') {
            this.db.prepare(INSERT_HISTORY).run({
              jobId: id,
              kind: 'transition',
              from: before,
              to: step.to,
              attempt: job.attempts,
              epoch: job.epoch,
              worker: step.worker,
              actor: step.actor,
              reason: step.reason,
              at,
              retryDelayMs: step.retryDelayMs ?? null,
            });
          }
        }
        return job;
      })
      .immediate();
  }

  /** Records a write the broker refused a stale holder. */
  refused(id: string, write: RefusedWrite): void {
    this.db.transaction(() => {
      const job = this.job(id);
      this.db.prepare(INSERT_HISTORY).run({
        jobId: id,
        kind: 'refused',
        from: job?.status ?? null,
        to: write.to,
        attempt: job?.attempts ?? 0,
        epoch: write.epoch,
        worker: write.worker,
        actor: 'worker',
        reason: write.reason,
        at: this.now(),
        retryDelayMs: null,
      });
    })();
  }

  /** Every job (in the order they were recorded) and, unless `history` is false, the history, read in one transaction. */
  snapshot(options: { history?: boolean } = {}): QueueSnapshot {
    return this.db.transaction(() => ({
      jobs: (this.db.prepare('SELECT * FROM jobs ORDER BY made').all() as JobRow[]).map(jobOf),
      history: options.history === false ? [] : (this.db.prepare('SELECT * FROM history ORDER BY seq').all() as HistoryRow[]).map(transitionOf),
    }))();
  }

  /** Changes whenever the record does. */
  progress(): string {
    const row = this.db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq, (SELECT MAX(updated_at) FROM jobs) AS at FROM history').get() as {
      seq: number;
      at: string | null;
    };
    return `${row.seq}@${row.at ?? ''}`;
  }

  /** Whether any job is still pending, retrying or running. */
  active(): boolean {
    return this.db.prepare("SELECT 1 FROM jobs WHERE status IN ('pending', 'retry', 'running') LIMIT 1").get() !== undefined;
  }

  close(): void {
    this.db.close();
  }
}
