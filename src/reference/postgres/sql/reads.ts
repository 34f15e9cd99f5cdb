import { firstRow, type Queryable, rows } from '../../../adapters/pg/queryable.js';
import { JOB_STATUSES, type JobStatus } from '../../../port/states.js';
import type { JobEvent, JobRow } from '../../job.js';
import { EVENT_COLUMNS, JOB_COLUMNS } from './columns.js';

/** Every job, oldest first. */
export async function readJobs(db: Queryable): Promise<JobRow[]> {
  return rows<JobRow>(db, `SELECT ${JOB_COLUMNS} FROM agent_jobs ORDER BY id`);
}

/** The whole history in the order it was written. */
export async function readAllEvents(db: Queryable): Promise<JobEvent[]> {
  return rows<JobEvent>(db, `SELECT ${EVENT_COLUMNS} FROM agent_job_events ORDER BY id`);
}

/** How many jobs are in each state, every state named. */
export async function countByStatus(db: Queryable): Promise<Record<JobStatus, number>> {
  const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const row of await rows<{ status: JobStatus; n: number }>(db, 'SELECT status, count(*) AS n FROM agent_jobs GROUP BY status')) {
    counts[row.status] = row.n;
  }
  return counts;
}

// Counts, not the largest ids: ids are handed out before commit, so a row with
// a smaller id can commit after a larger one and leave the maximum unmoved.
// Rows are never deleted, so every commit that writes one moves its count.
const PROGRESS = `SELECT (SELECT count(*) FROM agent_job_events) AS events, (SELECT count(*) FROM agent_tx_log) AS checkpoints`;

/** "events:checkpoints": changes whenever a history row or a checkpoint is committed. */
export async function readProgress(db: Queryable): Promise<string> {
  const row = await firstRow<{ events: number; checkpoints: number }>(db, PROGRESS);
  return `${row?.events ?? 0}:${row?.checkpoints ?? 0}`;
}
