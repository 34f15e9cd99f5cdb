import type pg from 'pg';
import { tableIn } from './pool.js';

/** One entry the history trigger wrote: the job's row as it was after the change (before it, for a delete). */
export interface HistoryRow {
  seq: number;
  op: 'INSERT' | 'UPDATE' | 'DELETE';
  jobId: string;
  key: string | null;
  /** graphile's payload, as text: the drill's action and payload (see enqueue.ts). */
  payload: string | null;
  attempts: number;
  maxAttempts: number;
  lockedBy: string | null;
  lockedAt: Date | null;
  runAt: Date | null;
  lastError: string | null;
  createdAt: Date | null;
  tx: string;
  byApp: string;
  at: Date;
}

interface Raw {
  seq: string;
  op: HistoryRow['op'];
  job_id: string;
  job_key: string | null;
  payload: string | null;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_at: Date | null;
  run_at: Date | null;
  last_error: string | null;
  created_at: Date | null;
  tx: string;
  by_app: string;
  at: Date;
}

/** Every history entry, in the order the trigger wrote them. */
export async function readHistory(db: pg.Pool, schema: string): Promise<HistoryRow[]> {
  const { rows } = await db.query<Raw>(`SELECT * FROM ${tableIn(schema, 'qd_history')} ORDER BY seq`);
  return rows.map((r) => ({
    seq: Number(r.seq),
    op: r.op,
    jobId: String(r.job_id),
    key: r.job_key,
    payload: r.payload,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    lockedBy: r.locked_by,
    lockedAt: r.locked_at,
    runAt: r.run_at,
    lastError: r.last_error,
    createdAt: r.created_at,
    tx: String(r.tx),
    byApp: r.by_app,
    at: r.at,
  }));
}

/** A review's outcome (review, or awaiting a person's approval) and the epoch it was given at. */
export interface ReviewOutcome {
  outcome: 'review' | 'awaiting_approval';
  epoch: number;
}

/** The last outcome given to each job sent to review by the adapter (a review by exhausted attempts has none). */
export async function readReviewOutcomes(db: pg.Pool, schema: string): Promise<Map<string, ReviewOutcome>> {
  const { rows } = await db.query<{ job_id: string; outcome: ReviewOutcome['outcome']; epoch: number }>(
    `SELECT job_id, outcome, epoch FROM ${tableIn(schema, 'qd_review')} ORDER BY id`,
  );
  return new Map(rows.map((r) => [String(r.job_id), { outcome: r.outcome, epoch: r.epoch }]));
}
