import type { Actor, JobOutcome, JobStatus } from '../kernel/vocabulary.js';

/*
 * What a queue knows about its jobs, in words every queue can be mapped to:
 * the evidence the judge reads of the queue, whatever stores it. Times are
 * fixed-width UTC strings ("2026-08-25T10:00:00.000Z"); ids are text (a row
 * number, a uuid, a BullMQ job id).
 */

/** One job as the queue holds it when asked. A queue may hold several for one key (a dedupe that failed). */
export interface JobSnapshot {
  /** The queue's own id for the job, as text. */
  id: string;
  /** The idempotency key it was enqueued under. */
  key: string;
  action: string;
  /** The payload as the queue stores it: JSON text. */
  payload: string;
  status: JobStatus;
  /** How it ended, once it is done or in review; null while it is not. */
  outcome: JobOutcome | null;
  attempts: number;
  maxAttempts: number;
  /** Who holds its lease; null when nobody does (or the queue cannot say: capabilities.evidence.holder). */
  holder: string | null;
  leaseUntil: string | null;
  /** The queue's monotonic epoch for the job (the reference's lease fence); 0 where it keeps none (capabilities.evidence.epoch). */
  epoch: number;
  nextRunAt: string | null;
  lastError: string | null;
  reviewReason: string | null;
  /** The verified result's digest of a done job (capabilities.evidence.digest). */
  resultDigest: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One entry of a queue's history: a state change, or a stale holder's write it refused. */
export interface Transition {
  /** Its place in the history: a later entry of the same job has a larger number. */
  seq: number;
  jobId: string;
  kind: 'transition' | 'refused';
  /** null: the job's creation. */
  from: JobStatus | null;
  /** For a refused write, the state it asked for. */
  to: JobStatus;
  attempt: number;
  /** The epoch the change was made under (for a refused write, the stale one it showed). */
  epoch: number;
  worker: string | null;
  actor: Actor;
  reason: string;
  at: string;
  /**
   * A release to retry after a failed attempt: the delay the queue chose before
   * the next one, where it records it (undefined where it does not).
   */
  retryDelayMs?: number | undefined;
  /**
   * When that retry falls due, by the queue's clock, where the delay counts
   * from another moment than `at` (pg-boss: its start_after, counted from its
   * transaction's start, while `at` is when the row changed, later under load).
   */
  retryDueAt?: string | undefined;
}

/** Everything a queue can tell about its jobs at one moment. */
export interface QueueSnapshot {
  jobs: JobSnapshot[];
  /** Every job's history in order; empty where the queue keeps none (capabilities.evidence.history). */
  history: Transition[];
}
