import type { Incident, TxRow } from '../../../port/checkpoint.js';
import { type Db, statement } from '../store.js';

// Job ids leave the store as text: the port's ids are text, whatever the queue.
const TX =
  `SELECT id, CAST(job_id AS TEXT) AS job_id, step_id, action, idempotency_key, status, external_reference, ` +
  `compensation_status, attempt, epoch, worker, detail, error_kind, at FROM agent_tx_log`;
const INCIDENTS = `SELECT id, CAST(job_id AS TEXT) AS job_id, step_id, error, status, at FROM agent_incidents`;

/** Every checkpoint (of one job, or all), in order. */
export function readTx(db: Db, jobId?: number): TxRow[] {
  return jobId === undefined
    ? (statement(db, `${TX} ORDER BY id`).all() as TxRow[])
    : (statement(db, `${TX} WHERE job_id = ? ORDER BY id`).all(jobId) as TxRow[]);
}

/** Records that a compensation failed and a person must recover by hand (the transaction sketch's incident store). */
export function recordIncident(db: Db, input: { jobId: number; stepId: string; error: string; at: string }): void {
  statement(db, 'INSERT INTO agent_incidents (job_id, step_id, error, at) VALUES (?, ?, ?, ?)').run(input.jobId, input.stepId, input.error, input.at);
}

/** Every incident (of one job, or all), in order. */
export function readIncidents(db: Db, jobId?: number): Incident[] {
  return jobId === undefined
    ? (statement(db, `${INCIDENTS} ORDER BY id`).all() as Incident[])
    : (statement(db, `${INCIDENTS} WHERE job_id = ? ORDER BY id`).all(jobId) as Incident[]);
}
