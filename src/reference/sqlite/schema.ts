import { sagaTablesSql } from '../../adapters/saga-file/saga-tables.js';
import { sqlList } from '../../kernel/sql-list.js';
import { JOB_OUTCOMES } from '../../kernel/vocabulary.js';
import { JOB_STATUSES, transitionTriggerSql } from '../../port/states.js';

const statusList = sqlList(JOB_STATUSES);

/** The index the claim reads the next job from, in the order it claims (see JOB_INDEXES_SQL). */
export const CLAIM_INDEX = 'idx_agent_jobs_claim';

/** The index the lease sweep reads expired leases from. */
export const LEASE_INDEX = 'idx_agent_jobs_leases';

/** The index of compensating jobs (few at a time). */
export const COMPENSATING_INDEX = 'idx_agent_jobs_compensating';

/*
 * Each of a claim's reads is served by an index of its own, so what a job
 * costs does not grow with the backlog: the look-up of the next job walks
 * the ready jobs in the very order it claims them (oldest first) and stops at
 * the first one that is due, with no sort of every ready job; the sweep of
 * expired leases reads only running jobs whose lease ended, never every
 * running one; the coordinator's claim finds compensating jobs without a
 * scan. Each is partial: a job leaves it when it leaves those states, so a
 * store of done jobs keeps them small. A query uses a partial index only
 * where its WHERE repeats the index's condition word for word (SQLite proves
 * nothing more), and names it (INDEXED BY) so the plan cannot drift.
 */
const JOB_INDEXES_SQL = `
CREATE INDEX IF NOT EXISTS ${CLAIM_INDEX} ON agent_jobs(created_at, id) WHERE status IN ('pending', 'retry');
CREATE INDEX IF NOT EXISTS ${LEASE_INDEX} ON agent_jobs(lease_until) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS ${COMPENSATING_INDEX} ON agent_jobs(id) WHERE status = 'compensating';`;

/** What a store's schema may leave out; the reference's is REFERENCE_SCHEMA_RULES. */
export interface SchemaRules {
  /** Whether idempotency_key is UNIQUE: the store, not a look-up, refuses a second job for a key. */
  uniqueKey: boolean;
}

/** The reference store keeps every constraint. */
export const REFERENCE_SCHEMA_RULES: SchemaRules = { uniqueKey: true };

/**
 * The store's schema, made by `rules`. `agent_jobs` keeps the queue sketch's column
 * names so a table made from the seed's design reads the same; the additions
 * are `lease_fence` (bumped by every claim: the job's epoch, the fencing token
 * every lease holder's write is guarded by), `review_reason`, and `outcome`
 * (how a done or review job ended, said explicitly rather than in a reason's
 * prefix). All times are fixed-width UTC strings written by the caller's clock
 * (never CURRENT_TIMESTAMP), so string order is time order.
 */
export function schemaSql(rules: SchemaRules): string {
  return `
CREATE TABLE IF NOT EXISTS agent_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT NOT NULL${rules.uniqueKey ? ' UNIQUE' : ''},
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
  review_reason TEXT,
  outcome TEXT CHECK (outcome IS NULL OR outcome IN (${sqlList(JOB_OUTCOMES)}))
);
${JOB_INDEXES_SQL}

-- The history is written in every claim's and every lease holder's transaction, and read whole (the
-- evidence, the observers), by job only by a person's command. So it keeps its writes cheap: no index by
-- job (a page more to write in each of those transactions; one job's history is a scan), and a plain rowid,
-- which grows with every row since none is ever deleted (AUTOINCREMENT would write sqlite_sequence too).
CREATE TABLE IF NOT EXISTS agent_job_events (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  kind TEXT NOT NULL CHECK (kind IN ('transition', 'refused')),
  from_status TEXT,
  to_status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  fence INTEGER NOT NULL,
  worker TEXT,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL,
  -- A release to retry: the delay chosen before the next attempt.
  delay_ms INTEGER
);
${transitionTriggerSql('agent_jobs')}

${sagaTablesSql({ log: 'agent_tx_log', incidents: 'agent_incidents', jobId: 'job_id INTEGER NOT NULL REFERENCES agent_jobs(id)' })}`;
}

/** The reference store's schema. */
export const SCHEMA_SQL = schemaSql(REFERENCE_SCHEMA_RULES);
