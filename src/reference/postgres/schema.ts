import { sqlList } from '../../kernel/sql-list.js';
import { ACTORS, JOB_OUTCOMES } from '../../kernel/vocabulary.js';
import { TX_ACTIONS, TX_STATUSES } from '../../port/checkpoint.js';
import { ALLOWED_TRANSITIONS, JOB_STATUSES } from '../../port/states.js';

/**
 * The state machine as a plpgsql trigger, generated from the same table as
 * assertTransition, so no writer of the schema (ours, a broken variant's, a
 * person's psql) can make a change the machine does not allow: a job is born
 * in an allowed first state, and every status change is an allowed edge.
 * Actors are not in the row, so they stay the code's to check.
 */
export function transitionTriggerPlpgsql(table: string): string {
  const births = ALLOWED_TRANSITIONS.filter((e) => e.from === null).map((e) => e.to);
  const edges = ALLOWED_TRANSITIONS.filter((e) => e.from !== null).map((e) => `${e.from}>${e.to}`);
  return `
CREATE FUNCTION ${table}_allowed_transitions() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT coalesce(NEW.status = ANY (ARRAY[${sqlList(births)}]::text[]), false) THEN
      RAISE EXCEPTION 'QD_TRANSITION_NOT_ALLOWED: a job is created %, not %', '${births.join(' or ')}', NEW.status
        USING ERRCODE = 'check_violation';
    END IF;
  ELSIF NEW.status IS DISTINCT FROM OLD.status
        AND NOT coalesce(OLD.status || '>' || NEW.status = ANY (ARRAY[${sqlList(edges)}]::text[]), false) THEN
    RAISE EXCEPTION 'QD_TRANSITION_NOT_ALLOWED: % -> % is not allowed', OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER ${table}_allowed_transitions
BEFORE INSERT OR UPDATE OF status ON ${table}
FOR EACH ROW EXECUTE FUNCTION ${table}_allowed_transitions();`;
}

/**
 * The queue's tables, created (unqualified) in the schema the caller has put
 * first on the search path: one schema per drill. Same columns as the SQLite
 * store's, plus `outcome`; times are timestamptz written from the server's
 * clock (clock_timestamp()), ids identities. Rows are never deleted.
 */
export const SCHEMA_SQL = `
CREATE TABLE agent_jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  idempotency_key text NOT NULL UNIQUE,
  action text NOT NULL,
  payload_json text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN (${sqlList(JOB_STATUSES)})),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
  leased_by text,
  lease_until timestamptz,
  next_run_at timestamptz NOT NULL,
  result_digest text,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- The job's epoch: bumped by every claim, shown by every lease holder's write.
  lease_fence bigint NOT NULL DEFAULT 0 CHECK (lease_fence >= 0),
  review_reason text,
  -- How a done or review job ended, said explicitly rather than in a reason's prefix.
  outcome text NULL CHECK (outcome IN (${sqlList(JOB_OUTCOMES)})),
  -- An outcome exactly when the job has ended (done, or review), the one done
  -- allows on a done job, and done only with a verified digest: a writer that
  -- forgets one is stopped here rather than read wrong later.
  CONSTRAINT agent_jobs_outcome_fits_status CHECK (
    CASE status
      WHEN 'done' THEN coalesce(outcome = 'done', false)
      WHEN 'review' THEN coalesce(outcome <> 'done', false)
      ELSE outcome IS NULL
    END),
  CONSTRAINT agent_jobs_done_has_digest CHECK (status <> 'done' OR coalesce(result_digest ~ '^[0-9a-f]{64}$', false))
);
-- The claim's scan: ready jobs, oldest first.
CREATE INDEX agent_jobs_ready ON agent_jobs (created_at, id) WHERE status IN ('pending', 'retry');
-- The sweep's: running jobs by lease end.
CREATE INDEX agent_jobs_leases ON agent_jobs (lease_until) WHERE status IN ('running', 'compensating');
${transitionTriggerPlpgsql('agent_jobs')}

CREATE TABLE agent_job_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id bigint NOT NULL REFERENCES agent_jobs (id),
  kind text NOT NULL CHECK (kind IN ('transition', 'refused')),
  from_status text CHECK (from_status IN (${sqlList(JOB_STATUSES)})),
  to_status text NOT NULL CHECK (to_status IN (${sqlList(JOB_STATUSES)})),
  attempt integer NOT NULL,
  fence bigint NOT NULL,
  worker text,
  actor text NOT NULL CHECK (actor IN (${sqlList(ACTORS)})),
  reason text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- A release to retry: the delay chosen before the next attempt.
  delay_ms integer
);
CREATE INDEX agent_job_events_job ON agent_job_events (job_id, id);

-- The transaction sketch's transaction log: one row per checkpoint of a plan step, carrying
-- the epoch of the lease it was written under.
CREATE TABLE agent_tx_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id bigint NOT NULL REFERENCES agent_jobs (id),
  step_id text NOT NULL,
  action text NOT NULL CHECK (action IN (${sqlList(TX_ACTIONS)})),
  idempotency_key text NOT NULL,
  status text NOT NULL CHECK (status IN (${sqlList(TX_STATUSES)})),
  external_reference text,
  compensation_status text,
  attempt integer NOT NULL,
  epoch bigint NOT NULL,
  worker text NOT NULL,
  detail text,
  -- For a failed call: the kind of its error, so whoever resumes knows whether it may be tried again.
  error_kind text,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX agent_tx_log_job ON agent_tx_log (job_id, step_id, id);

-- A failed compensation is an incident for a person, never "compensated".
CREATE TABLE agent_incidents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id bigint NOT NULL REFERENCES agent_jobs (id),
  step_id text NOT NULL,
  error text NOT NULL,
  status text NOT NULL DEFAULT 'manual_recovery_required',
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX agent_incidents_job ON agent_incidents (job_id, id);
`;
