import { sqlList } from '../../kernel/sql-list.js';
import { TX_ACTIONS, TX_STATUSES } from '../../port/checkpoint.js';

/**
 * The transaction sketch's transaction log and incident store as SQLite tables: in the
 * queue's own file (the reference), or in a file beside the run (for queues
 * that cannot share a transaction with it), named and keyed as each needs.
 */
export function sagaTablesSql(names: { log: string; incidents: string; jobId: string }): string {
  return `
-- The transaction sketch's transaction log: one row per checkpoint of a plan step, written
-- before and after each call to the world, so whoever resumes a job (a worker
-- after a crash, the coordinator) knows where it stands.
-- Append-only too, so a plain rowid (see agent_job_events).
CREATE TABLE IF NOT EXISTS ${names.log} (
  id INTEGER PRIMARY KEY,
  ${names.jobId},
  step_id TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN (${sqlList(TX_ACTIONS)})),
  idempotency_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${sqlList(TX_STATUSES)})),
  external_reference TEXT,
  compensation_status TEXT,
  attempt INTEGER NOT NULL,
  -- The epoch of the lease it was written under: a stale holder's checkpoint is visible as such.
  epoch INTEGER NOT NULL,
  worker TEXT NOT NULL,
  detail TEXT,
  -- For a failed call: the kind of its error, so whoever resumes knows whether it may be tried again.
  error_kind TEXT,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_${names.log}_job ON ${names.log}(job_id, step_id, id);

-- A failed compensation is an incident for a person, never "compensated".
CREATE TABLE IF NOT EXISTS ${names.incidents} (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ${names.jobId},
  step_id TEXT NOT NULL,
  error TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'manual_recovery_required',
  at TEXT NOT NULL
);`;
}
