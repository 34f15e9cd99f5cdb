import type { JobStatus } from '../../../port/states.js';
import type { JobEvent, JobRow } from '../../job.js';
import { type Db, statement } from '../store.js';

/** One job by id. */
export function readJob(db: Db, jobId: number): JobRow | undefined {
  return statement(db, 'SELECT * FROM agent_jobs WHERE id = ?').get(jobId) as JobRow | undefined;
}

/** Every job, oldest first. */
export function readJobs(db: Db): JobRow[] {
  return statement(db, 'SELECT * FROM agent_jobs ORDER BY id').all() as JobRow[];
}

/** One job's history in the order it happened: its life, rebuilt from its id. */
export function readHistory(db: Db, jobId: number): JobEvent[] {
  return statement(db, 'SELECT * FROM agent_job_events WHERE job_id = ? ORDER BY id').all(jobId) as JobEvent[];
}

/** The whole history in the order it happened. */
export function readAllEvents(db: Db): JobEvent[] {
  return statement(db, 'SELECT * FROM agent_job_events ORDER BY id').all() as JobEvent[];
}

/** How many jobs are in each state. */
export function countByStatus(db: Db): Record<JobStatus, number> {
  const rows = statement(db, 'SELECT status, COUNT(*) AS n FROM agent_jobs GROUP BY status').all() as Array<{
    status: JobStatus;
    n: number;
  }>;
  const counts: Record<JobStatus, number> = { pending: 0, running: 0, retry: 0, done: 0, review: 0, compensating: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}
