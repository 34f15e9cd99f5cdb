import { type Queryable, rows, run } from '../../../adapters/pg/queryable.js';
import type { Incident, TxRow } from '../../../port/checkpoint.js';
import { INCIDENT_COLUMNS, TX_COLUMNS } from './columns.js';

/** Every checkpoint (of one job, or all), in the order written. */
export async function readTx(db: Queryable, jobId?: number): Promise<TxRow[]> {
  return jobId === undefined
    ? rows<TxRow>(db, `SELECT ${TX_COLUMNS} FROM agent_tx_log ORDER BY id`)
    : rows<TxRow>(db, `SELECT ${TX_COLUMNS} FROM agent_tx_log WHERE job_id = @jobId ORDER BY id`, { jobId });
}

/** Records that a compensation failed for good and a person must recover by hand (the transaction sketch's incident store). */
export async function recordIncident(db: Queryable, input: { jobId: number; stepId: string; error: string }): Promise<void> {
  await run(db, 'INSERT INTO agent_incidents (job_id, step_id, error) VALUES (@jobId, @stepId, @error)', { ...input });
}

/** Every incident (of one job, or all), in order. */
export async function readIncidents(db: Queryable, jobId?: number): Promise<Incident[]> {
  return jobId === undefined
    ? rows<Incident>(db, `SELECT ${INCIDENT_COLUMNS} FROM agent_incidents ORDER BY id`)
    : rows<Incident>(db, `SELECT ${INCIDENT_COLUMNS} FROM agent_incidents WHERE job_id = @jobId ORDER BY id`, { jobId });
}
