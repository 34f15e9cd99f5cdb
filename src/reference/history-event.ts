import type { Actor, JobStatus } from '../port/states.js';

/** One row of a job's history, as a store appends it: a transition, or a refused write. */
export interface HistoryEventInput {
  jobId: number;
  kind: 'transition' | 'refused';
  from: JobStatus | null;
  to: JobStatus;
  attempt: number;
  fence: number;
  worker: string | null;
  actor: Actor;
  reason: string;
  /** A release to retry: how long the queue said the job waits before its next attempt (null for any other row). */
  delayMs?: number | null;
}

/** The first row of every job's history: a producer made it, pending, before any attempt or lease. */
export function creationEvent(jobId: number): HistoryEventInput {
  return { jobId, kind: 'transition', from: null, to: 'pending', attempt: 0, fence: 0, worker: null, actor: 'producer', reason: 'enqueued' };
}
