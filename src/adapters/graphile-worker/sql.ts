import { quoteIdent } from '../pg/identifier.js';

/*
 * The statements the adapter runs itself. Each changes graphile's table only
 * through graphile's documented admin functions (force_unlock_workers,
 * permanently_fail_jobs, reschedule_jobs), after a `FOR UPDATE` read that
 * fences it to the one job, epoch and holder it was decided for.
 */

/** Locks the job if it is still held by `$3` under epoch `$2`, with a lock older than `$4` ms. */
export const LOCK_EXPIRED = (schema: string) => `
SELECT id FROM ${quoteIdent(schema)}._private_jobs
WHERE id = $1::bigint AND attempts = $2::int AND locked_by = $3::text AND locked_at < now() - make_interval(secs => $4::float8 / 1000)
FOR UPDATE`;

/**
 * Locks the job if it is as its holder's failJob left it: unlocked under epoch
 * `$2`, and changed by nobody since (its last history entry is `$3`'s, the
 * holder's connection): a person's reschedule in between is never undone.
 */
export const LOCK_RELEASED = (schema: string) => `
SELECT id FROM ${quoteIdent(schema)}._private_jobs
WHERE id = $1::bigint AND attempts = $2::int AND locked_by IS NULL
  AND (SELECT by_app FROM ${quoteIdent(schema)}.qd_history WHERE job_id = $1::bigint ORDER BY seq DESC LIMIT 1) = $3::text
FOR UPDATE`;

/** Locks the job if it failed for good (unlocked, no attempt left): review, in the drill's words. */
export const LOCK_REVIEW = (schema: string) => `
SELECT attempts, key,
  (SELECT max_attempts FROM ${quoteIdent(schema)}.qd_history WHERE job_id = $1::bigint AND op = 'INSERT' ORDER BY seq LIMIT 1) AS enqueued_max
FROM ${quoteIdent(schema)}._private_jobs WHERE id = $1::bigint AND locked_by IS NULL AND attempts >= max_attempts FOR UPDATE`;

export const FORCE_UNLOCK = (schema: string) => `SELECT ${quoteIdent(schema)}.force_unlock_workers(ARRAY[$1::text])`;

export const PERMANENTLY_FAIL = (schema: string) => `SELECT id FROM ${quoteIdent(schema)}.permanently_fail_jobs(ARRAY[$1::bigint], $2::text)`;

/**
 * Fails an unlocked job for good without counting an attempt it never made:
 * rescheduleJobs lowers max_attempts to the attempts made, then
 * permanentlyFailJobs stores the reason (its own `attempts = max_attempts` is
 * then no change). permanentlyFailJobs alone would raise attempts to
 * max_attempts, and the attempts would no longer count the claims.
 */
export async function failForGood(
  client: { query(text: string, values: unknown[]): Promise<unknown> },
  schema: string,
  jobId: string,
  attempts: number,
  reason: string,
) {
  await client.query(`SELECT id FROM ${quoteIdent(schema)}.reschedule_jobs(ARRAY[$1::bigint], max_attempts => $2::int)`, [jobId, attempts]);
  await client.query(PERMANENTLY_FAIL(schema), [jobId, reason]);
}

/** Runs now, with max_attempts `$2` (the caller's: at least one more attempt). */
export const RESCHEDULE_ONE_MORE = (schema: string) =>
  `SELECT id FROM ${quoteIdent(schema)}.reschedule_jobs(ARRAY[$1::bigint], run_at => now(), max_attempts => $2::int)`;

/** The outcome a review was given (review, or awaiting a person's approval), under the epoch it was given at. */
export const RECORD_REVIEW_OUTCOME = (schema: string) =>
  `INSERT INTO ${quoteIdent(schema)}.qd_review (job_id, outcome, epoch) VALUES ($1::bigint, $2::text, $3::int)`;

/** Jobs locked longer than `$1` ms: by the drill's assumption, their workers are dead. */
export const LOCKED_LONGER_THAN = (schema: string) => `
SELECT id::text AS id, key, payload::text AS payload, attempts, max_attempts, locked_by, locked_at
FROM ${quoteIdent(schema)}._private_jobs
WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1::float8 / 1000)
ORDER BY id`;

/** Jobs not yet done or failed for good: pending, retrying or running. */
export const UNFINISHED = (schema: string) =>
  `SELECT count(*)::int AS n FROM ${quoteIdent(schema)}._private_jobs WHERE attempts < max_attempts OR locked_by IS NOT NULL`;

/** The last change the trigger saw this job's row make by the connection `$2`, after history entry `$3`. */
export const LAST_CHANGE_BY = (schema: string) => `
SELECT op, locked_by FROM ${quoteIdent(schema)}.qd_history WHERE job_id = $1::bigint AND by_app = $2::text AND seq > $3::bigint ORDER BY seq DESC LIMIT 1`;

/** The newest history entry: a watermark. */
export const LAST_SEQ = (schema: string) => `SELECT coalesce(max(seq), 0)::text AS seq FROM ${quoteIdent(schema)}.qd_history`;
