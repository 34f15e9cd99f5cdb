import { firstRow, millis, type Queryable } from '../../../adapters/pg/queryable.js';

// The earliest time the reference claim (or a coordinator) could find a job it cannot find now, with no other write
// in between: a waiting job's next run (attempts left, as the claim asks), or the end of a lease, a worker's on a
// running job or a coordinator's on a compensating one, plus the skew margin and one ms (a lease counts as ended
// strictly after that cutoff). LEAST skips a NULL; both NULL: nothing falls due by time alone.
// Each MIN reads a partial index (schema.ts): the lease ends from agent_jobs_leases, which holds them in order;
// the next runs from agent_jobs_ready, the same entries a claim that found nothing due has just walked.
// Milliseconds rounded up (a wake a little after the due time claims the job, one a little before finds nothing),
// negative when past: clamped by the caller, as the time is named once here (a CASE naming it twice makes the
// planner run each look-up twice).
export const NEXT_DUE_SQL = `
SELECT ceil(extract(epoch FROM LEAST(
  (SELECT min(next_run_at) FROM agent_jobs WHERE status IN ('pending', 'retry') AND attempts < max_attempts),
  (SELECT min(lease_until) FROM agent_jobs WHERE status IN ('running', 'compensating'))
    + ${millis('@skewMarginMs')} + interval '1 millisecond'
) - clock_timestamp()) * 1000)::float8 AS ms`;

/**
 * How long from the server's now until a job falls due by time alone (a retry's
 * delay, a lease's end plus the skew margin); 0 when one is due already; null
 * when none will. One statement, from the server's clock, as every time here is.
 */
export async function msUntilDue(db: Queryable, skewMarginMs: number): Promise<number | null> {
  const ms = (await firstRow<{ ms: number | null }>(db, NEXT_DUE_SQL, { skewMarginMs }))?.ms ?? null;
  return ms === null ? null : Math.max(0, ms);
}
