import type { JobSnapshot } from '../../port/snapshot.js';
import { EXPIRED_MESSAGE, outputError, readJobData, readOutput } from './job-data.js';
import { statusOf } from './states.js';

/** A row of pg-boss's job table (or its archive), as the snapshot reads it. */
export interface PgBossJobRow {
  id: string;
  data: unknown;
  state: string;
  retry_count: number;
  retry_limit: number;
  started_on: Date | null;
  expire_seconds: number;
  start_after: Date;
  completed_on: Date | null;
  created_on: Date;
  output: unknown;
}

const COLUMNS = `id::text AS id, data, state::text AS state, retry_count, retry_limit, started_on,
  EXTRACT(epoch FROM expire_in)::float8 AS expire_seconds, start_after, completed_on, created_on, output`;

/** Every job of the queue, the archived ones too (pg-boss moves finished jobs there after its archive interval). */
export const JOBS_SQL = `
SELECT ${COLUMNS} FROM job WHERE name = $1
UNION ALL
SELECT ${COLUMNS} FROM archive a WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM job j WHERE j.name = a.name AND j.id = a.id)
ORDER BY created_on, id`;

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/**
 * Attempts (and the epoch) as pg-boss counts claims: `retry_count` is raised
 * at every fetch but the first (plans.js fetchNextJob: `CASE WHEN started_on
 * IS NOT NULL THEN retry_count + 1`), so a job fetched n times has retry_count
 * n - 1.
 */
export function attemptsOf(row: Pick<PgBossJobRow, 'started_on' | 'retry_count'>): number {
  return row.started_on === null ? 0 : row.retry_count + 1;
}

function reviewReasonOf(row: PgBossJobRow, attempts: number, maxAttempts: number): string | null {
  if (row.state !== 'failed' && row.state !== 'cancelled') return null;
  const output = readOutput(row.output);
  if (output.reviewReason) return output.reviewReason;
  const error = outputError(output);
  if (error === EXPIRED_MESSAGE) return `lease expired (pg-boss maintenance) on its last attempt (${attempts} of ${maxAttempts})`;
  return `retries exhausted (${attempts} of ${maxAttempts}): ${error ?? 'failed'}`;
}

export function toJobSnapshot(row: PgBossJobRow): JobSnapshot {
  const data = readJobData(row.data);
  const output = readOutput(row.output);
  const status = statusOf(row.state, row.completed_on);
  const attempts = attemptsOf(row);
  // A person's boss.retry() raises retry_limit by one: one more attempt than the producer asked for.
  const maxAttempts = Math.max(data.maxAttempts, row.retry_limit + 1);
  const leaseUntil = row.state === 'active' && row.started_on ? new Date(row.started_on.getTime() + row.expire_seconds * 1000) : null;
  const updated = [row.completed_on, row.started_on, row.created_on].filter((d): d is Date => d !== null);
  return {
    id: row.id,
    key: data.key,
    action: data.action,
    payload: data.payload,
    status,
    outcome: status === 'done' ? 'done' : status === 'review' ? (output.outcome ?? 'review') : null,
    attempts,
    maxAttempts,
    holder: null,
    leaseUntil: iso(leaseUntil),
    epoch: attempts,
    nextRunAt: status === 'pending' || status === 'retry' ? iso(row.start_after) : null,
    lastError: status === 'done' ? null : outputError(output),
    reviewReason: reviewReasonOf(row, attempts, maxAttempts),
    resultDigest: status === 'done' ? (output.digest ?? null) : null,
    createdAt: row.created_on.toISOString(),
    updatedAt: new Date(Math.max(...updated.map((d) => d.getTime()))).toISOString(),
  };
}
