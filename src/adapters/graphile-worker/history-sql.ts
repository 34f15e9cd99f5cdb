import { quoteIdent } from '../pg/identifier.js';

/*
 * The history graphile-worker does not keep, recorded by the database itself:
 * a row trigger the harness installs on the run's `_private_jobs` table copies
 * every insert, every delete, and every update that touches what the drill
 * judges (attempts, max_attempts, locked_by, locked_at, run_at, last_error,
 * key, payload) into `qd_history`, with the server's time, the transaction and the
 * writing connection's application_name (each process of the drill names
 * itself there: `qd:worker:<graphile worker id>`, `qd:coordinator:<id>`,
 * `qd:producer`, `qd:human:<who>`). No process tells the history what it did:
 * the trigger sees what reached the table. An enqueue deduplicated under
 * unsafe_dedupe (graphile bumps `revision` and `updated_at` only) changes
 * nothing judged, so it leaves no entry; under replace it leaves the reset it
 * made (attempts, run_at, payload), or the key it took from a locked job.
 */

/**
 * The statements that add the history table, the drill's own tables (where the
 * saga file is; the outcome a worker gave a job it sent to review) and the
 * trigger to a migrated graphile schema.
 */
export function historySql(schema: string): string {
  const s = quoteIdent(schema);
  return `
CREATE TABLE ${s}.qd_history (
  seq bigserial PRIMARY KEY,
  op text NOT NULL,
  job_id bigint NOT NULL,
  job_key text,
  payload text,
  attempts integer NOT NULL,
  max_attempts integer NOT NULL,
  locked_by text,
  locked_at timestamptz,
  run_at timestamptz,
  last_error text,
  created_at timestamptz,
  tx bigint NOT NULL DEFAULT txid_current(),
  by_app text NOT NULL DEFAULT current_setting('application_name'),
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE ${s}.qd_drill (saga_file text NOT NULL);
CREATE TABLE ${s}.qd_review (
  id bigserial PRIMARY KEY,
  job_id bigint NOT NULL,
  outcome text NOT NULL,
  epoch integer NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION ${s}.qd_record_job_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r ${s}._private_jobs;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  IF TG_OP = 'UPDATE'
      AND (NEW.attempts, NEW.max_attempts, NEW.locked_by, NEW.locked_at, NEW.run_at, NEW.last_error, NEW.key, NEW.payload::text)
      IS NOT DISTINCT FROM (OLD.attempts, OLD.max_attempts, OLD.locked_by, OLD.locked_at, OLD.run_at, OLD.last_error, OLD.key, OLD.payload::text) THEN
    RETURN NULL;
  END IF;
  INSERT INTO ${s}.qd_history (op, job_id, job_key, payload, attempts, max_attempts, locked_by, locked_at, run_at, last_error, created_at)
  VALUES (TG_OP, r.id, r.key, r.payload::text, r.attempts, r.max_attempts, r.locked_by, r.locked_at, r.run_at, r.last_error, r.created_at);
  RETURN NULL;
END
$$;
CREATE TRIGGER qd_history AFTER INSERT OR UPDATE OR DELETE ON ${s}._private_jobs
  FOR EACH ROW EXECUTE FUNCTION ${s}.qd_record_job_change();`;
}
