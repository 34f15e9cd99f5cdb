import { quoteIdent } from '../pg/identifier.js';

/*
 * The history pg-boss does not keep, kept by the database rather than by any
 * process of the drill: a row trigger on pg-boss's job table (partitioned by
 * queue in 10.x; an AFTER row trigger on the parent is cloned onto every
 * partition, including one attached later by create_queue, on PostgreSQL 13+)
 * writes every insert, every change of state and every delete into
 * qd_history, with the transaction's id, the clock at the change, the
 * retry_count and the connection's application_name (each pg-boss instance of
 * the drill names its role and worker there). pg-boss's fail is a delete and a
 * re-insert in one statement: the reader pairs them by transaction and job.
 */

/** The history table, its trigger function and the trigger, in `schema` (pg-boss's tables must be there). */
export function historyTriggerSql(schema: string): string {
  const s = quoteIdent(schema);
  const row = (rec: 'OLD' | 'NEW', op: string, oldState: string, newState: string, output: string) => `
    INSERT INTO ${s}.qd_history (job_id, op, old_state, new_state, retry_count, retry_limit, start_after, completed_on, output, app, tx, at, tx_at)
    VALUES (${rec}.id, '${op}', ${oldState}, ${newState}, ${rec}.retry_count, ${rec}.retry_limit, ${rec}.start_after, ${rec}.completed_on,
            ${output}, current_setting('application_name'), txid_current(), clock_timestamp(), now());`;
  return `
CREATE TABLE ${s}.qd_history (
  seq bigserial PRIMARY KEY,
  job_id uuid NOT NULL,
  op text NOT NULL,
  old_state text,
  new_state text,
  retry_count integer NOT NULL,
  retry_limit integer NOT NULL,
  start_after timestamptz NOT NULL,
  completed_on timestamptz,
  output jsonb,
  app text NOT NULL,
  tx bigint NOT NULL,
  at timestamptz NOT NULL,
  tx_at timestamptz NOT NULL
);
CREATE INDEX qd_history_job ON ${s}.qd_history (job_id, seq);
CREATE FUNCTION ${s}.qd_record_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    ${row('OLD', 'D', 'OLD.state::text', 'NULL', 'NULL')}
    RETURN OLD;
  ELSIF TG_OP = 'INSERT' THEN
    ${row('NEW', 'I', 'NULL', 'NEW.state::text', 'NEW.output')}
  ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
    ${row('NEW', 'U', 'OLD.state::text', 'NEW.state::text', 'NEW.output')}
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER qd_history AFTER INSERT OR UPDATE OR DELETE ON ${s}.job FOR EACH ROW EXECUTE FUNCTION ${s}.qd_record_job();
CREATE TABLE ${s}.qd_run (saga_file text NOT NULL);
`;
}
