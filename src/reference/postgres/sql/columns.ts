/*
 * The rows as the LeaseStore hands them out: every time the fixed-width UTC
 * string `YYYY-MM-DDTHH:MM:SS.mmmZ` (to_char truncates to the millisecond, as
 * Date#toISOString does), whatever the session's TimeZone; ids as numbers
 * (the pool parses bigint, see pool.ts).
 */

/** A timestamptz column as the store's UTC text, under its own name. */
export function iso(column: string, alias?: string): string {
  const source = alias === undefined ? column : `${alias}.${column}`;
  return `to_char(${source} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;
}

/** Every column of agent_jobs, as a JobRow (`alias` qualifies them where a FROM list could make a name ambiguous). */
export function jobColumns(alias?: string): string {
  const q = (column: string) => (alias === undefined ? column : `${alias}.${column}`);
  return [
    q('id'),
    q('idempotency_key'),
    q('action'),
    q('payload_json'),
    q('status'),
    q('attempts'),
    q('max_attempts'),
    q('leased_by'),
    iso('lease_until', alias),
    iso('next_run_at', alias),
    q('result_digest'),
    q('last_error'),
    iso('created_at', alias),
    iso('updated_at', alias),
    q('lease_fence'),
    q('review_reason'),
    q('outcome'),
  ].join(', ');
}

/** Every column of agent_jobs, unqualified. */
export const JOB_COLUMNS = jobColumns();

/** agent_job_events as JobEvent. */
export const EVENT_COLUMNS = `id, job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, ${iso('at')}, delay_ms`;

/** agent_tx_log as TxRow: the job's id as text, as the saga port carries it. */
export const TX_COLUMNS =
  `id, job_id::text AS job_id, step_id, action, idempotency_key, status, external_reference, ` +
  `compensation_status, attempt, epoch, worker, detail, error_kind, ${iso('at')}`;

/** agent_incidents as Incident. */
export const INCIDENT_COLUMNS = `id, job_id::text AS job_id, step_id, error, status, ${iso('at')}`;
