import { utc } from '../kernel/clock.js';
import { statement, type Db } from '../adapters/sqlite/store.js';

export interface Incident {
  id: number;
  job_id: number;
  step_id: string;
  error: string;
  status: string;
  at: string;
}

/** Records that a compensation failed and a person must recover by hand (seed 003's incident store). */
export function recordIncident(db: Db, input: { jobId: number; stepId: string; error: string; now: number }): void {
  statement(db, 'INSERT INTO agent_incidents (job_id, step_id, error, at) VALUES (?, ?, ?, ?)').run(
    input.jobId,
    input.stepId,
    input.error,
    utc(input.now),
  );
}

/** A job's incidents (every one if no job is named). */
export function readIncidents(db: Db, jobId?: number): Incident[] {
  return jobId === undefined
    ? (statement(db, 'SELECT * FROM agent_incidents ORDER BY id').all() as Incident[])
    : (statement(db, 'SELECT * FROM agent_incidents WHERE job_id = ? ORDER BY id').all(jobId) as Incident[]);
}
