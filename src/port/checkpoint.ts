/*
 * The saga runtime's transaction log (the transaction sketch), as a port: every checkpoint
 * of a plan step, written before and after each call to the world, so whoever
 * resumes a job knows where it stands. A store that shares a transaction with
 * its queue (the reference on SQLite or PostgreSQL) guards every checkpoint by
 * the writer's live lease; one that cannot lives beside the run and fences by
 * the epoch: once a later holder has shown its epoch, an older one's
 * checkpoint is refused.
 */

export const TX_ACTIONS = ['execute', 'reconcile', 'prepare', 'approve', 'requeue', 'compensate'] as const;
/** What a checkpoint records: a call, a reconciliation, an approval step, a person's requeue, a compensation. */
export type TxAction = (typeof TX_ACTIONS)[number];

export const TX_STATUSES = ['started', 'success', 'failed', 'unknown', 'not_executed', 'skipped'] as const;
export type TxStatus = (typeof TX_STATUSES)[number];

/** One checkpoint, as stored. */
export interface TxRow {
  id: number;
  job_id: string;
  step_id: string;
  action: TxAction;
  idempotency_key: string;
  status: TxStatus;
  external_reference: string | null;
  compensation_status: string | null;
  attempt: number;
  /** The epoch of the lease it was written under (for a person's row, the job's epoch at that moment). */
  epoch: number;
  worker: string;
  detail: string | null;
  /** For a failed call: the kind of its error (src/kernel/job-errors.ts), so whoever resumes knows whether it may be tried again. */
  error_kind: string | null;
  at: string;
}

/** A checkpoint to write; the job, attempt, epoch and writer come from whoever writes it. */
export interface TxEntry {
  stepId: string;
  action: TxAction;
  key: string;
  status: TxStatus;
  externalReference?: string | null;
  compensationStatus?: string | null;
  /** Already redacted. */
  detail?: string | null;
  errorKind?: string | null;
}

/** A compensation that failed for good: a person must recover by hand (the transaction sketch's incident store). */
export interface Incident {
  id: number;
  job_id: string;
  step_id: string;
  error: string;
  status: string;
  at: string;
}

/** Who writes: the holder of a lease (a worker, or the coordinator compensating), under its epoch. */
export interface Writer {
  jobId: string;
  attempt: number;
  epoch: number;
  holder: string;
}

/** One job's log, as its current holder may write it. */
export interface SagaLog {
  /** Appends a checkpoint; false when the writer is no longer the holder (its lease was lost, or a later epoch was shown). */
  append(entry: TxEntry): Promise<boolean>;
  /** The job's whole log, in order. */
  rows(): Promise<TxRow[]>;
  /** Records an incident for a person. */
  incident(stepId: string, error: string): Promise<void>;
}

/** Where the saga's checkpoints are kept. */
export interface SagaStore {
  /** The log of `writer`'s job, fenced for `writer`. A store beside the run records the writer's epoch here, fencing every older one off. */
  logFor(writer: Writer): Promise<SagaLog>;
  /** Every checkpoint (of one job, or all), in order. */
  rows(jobId?: string): Promise<TxRow[]>;
  /** Every incident (of one job, or all), in order. */
  incidents(jobId?: string): Promise<Incident[]>;
}
