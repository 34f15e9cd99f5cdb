/*
 * The rows as the LeaseStore hands them out: every time the fixed-width UTC
 * string `YYYY-MM-DDTHH:MM:SS.mmmZ` (to_char truncates to the millisecond, as
 * Date#toISOString does), whatever the session's TimeZone; ids as numbers
 * (the pool parses bigint, see pool.ts).
 */

/** A timestamptz expression as the store's UTC text. */
export function isoText(expression: string): string {
  return `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A timestamptz column as the store's UTC text, under its own name. */
export function iso(column: string, alias?: string): string {
  return `${isoText(alias === undefined ? column : `${alias}.${column}`)} AS ${column}`;
}

/** Every column of agent_jobs, in a JobRow's order. */
export const JOB_ROW_COLUMNS = [
  'id',
  'idempotency_key',
  'action',
  'payload_json',
  'status',
  'attempts',
  'max_attempts',
  'leased_by',
  'lease_until',
  'next_run_at',
  'result_digest',
  'last_error',
  'created_at',
  'updated_at',
  'lease_fence',
  'review_reason',
  'outcome',
] as const;

/** The timestamptz columns among them, handed out as UTC text. */
const TIME_COLUMNS: ReadonlySet<string> = new Set(['lease_until', 'next_run_at', 'created_at', 'updated_at']);

/** Every column of agent_jobs, as a JobRow (`alias` qualifies them where a FROM list could make a name ambiguous). */
export function jobColumns(alias?: string): string {
  return JOB_ROW_COLUMNS.map((column) => (TIME_COLUMNS.has(column) ? iso(column, alias) : alias === undefined ? column : `${alias}.${column}`)).join(
    ', ',
  );
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
