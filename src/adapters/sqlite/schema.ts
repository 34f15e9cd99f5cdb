import { JOB_STATUSES, transitionTriggerSql } from '../../queue/states.js';

const statusList = JOB_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * The store's schema. `agent_jobs` keeps seed 000's column names so a table made
 * from the seed's design reads the same; the additions are `lease_fence` (bumped
 * by every claim: the fencing token every lease holder's write is guarded by) and
 * `review_reason`. All times are fixed-width UTC strings written by the caller's
 * clock (never CURRENT_TIMESTAMP), so string order is time order.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS agent_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT NOT NULL UNIQUE,
  action TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN (${statusList})),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
  leased_by TEXT,
  lease_until TEXT,
  next_run_at TEXT NOT NULL,
  result_digest TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  lease_fence INTEGER NOT NULL DEFAULT 0,
  review_reason TEXT
);
CREATE INDEX IF NOT EXISTS idx_agent_jobs_ready ON agent_jobs(status, next_run_at, lease_until);

CREATE TABLE IF NOT EXISTS agent_job_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  kind TEXT NOT NULL CHECK (kind IN ('transition', 'refused')),
  from_status TEXT,
  to_status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  fence INTEGER NOT NULL,
  worker TEXT,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_agent_job_events_job ON agent_job_events(job_id, id);
${transitionTriggerSql('agent_jobs')}

-- Seed 003's transaction log: one row per checkpoint of a plan step, written
-- before and after each call to the world, so whoever resumes a job (a worker
-- after a crash, the coordinator) knows where it stands.
CREATE TABLE IF NOT EXISTS agent_tx_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  step_id TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('execute', 'reconcile', 'prepare', 'approve', 'compensate')),
  idempotency_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('started', 'success', 'failed', 'unknown', 'not_executed', 'skipped')),
  external_reference TEXT,
  compensation_status TEXT,
  attempt INTEGER NOT NULL,
  worker TEXT NOT NULL,
  detail TEXT,
  -- For a failed call: the kind of its error, so whoever resumes knows whether it may be tried again.
  error_kind TEXT,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_agent_tx_log_job ON agent_tx_log(job_id, step_id, id);

-- A failed compensation is an incident for a person, never "compensated".
CREATE TABLE IF NOT EXISTS agent_incidents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  step_id TEXT NOT NULL,
  error TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'manual_recovery_required',
  at TEXT NOT NULL
);
`;
