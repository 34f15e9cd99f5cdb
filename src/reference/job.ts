import type { JobOutcome, JobStatus } from '../kernel/vocabulary.js';

/** A row of agent_jobs as stored. */
export interface JobRow {
  id: number;
  idempotency_key: string;
  action: string;
  payload_json: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  leased_by: string | null;
  lease_until: string | null;
  next_run_at: string;
  result_digest: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  lease_fence: number;
  review_reason: string | null;
  /** How it ended, set with done and review (null otherwise): explicit, never read from a reason's prefix. */
  outcome: JobOutcome | null;
}

/** A row of agent_job_events: one state change, or one refused write. */
export interface JobEvent {
  id: number;
  job_id: number;
  kind: 'transition' | 'refused';
  from_status: JobStatus | null;
  to_status: JobStatus;
  attempt: number;
  fence: number;
  worker: string | null;
  actor: string;
  reason: string;
  at: string;
  /** A release to retry: the delay the queue set before the next attempt; null for any other row. */
  delay_ms: number | null;
}

/**
 * What a worker holds after a claim. Every write it makes is guarded by all
 * three: the job, the worker, and the fence of this very claim, so a worker
 * that lost its lease (even to itself, restarted under the same id) is refused.
 */
export interface Lease {
  jobId: number;
  workerId: string;
  fence: number;
}

/** The outcome of a write made under a lease: applied, or refused and recorded. */
export type LeaseWriteResult =
  | {
      ok: true;
      status: JobStatus;
      /** A renewal's new lease end, as stored (a heartbeat's answer; absent for any other write). */
      leaseUntil?: string;
    }
  | {
      ok: false;
      code: 'QD_LEASE_LOST';
      /** What the store held when the write was refused. */
      current: { status: JobStatus; leasedBy: string | null; fence: number } | null;
    };
