import { parseUtc } from '../../../kernel/clock.js';
import { CLAIM_INDEX, COMPENSATING_INDEX, LEASE_INDEX } from '../schema.js';
import { type Db, statement } from '../store.js';

// The earliest a waiting job may be claimed (attempts left, as the claim asks), from the claim index.
const NEXT_RUN_SQL = `
SELECT MIN(next_run_at) AS at FROM agent_jobs INDEXED BY ${CLAIM_INDEX}
WHERE status IN ('pending', 'retry') AND attempts < max_attempts`;

// The earliest lease to end, from the lease index.
const NEXT_LEASE_END_SQL = `SELECT MIN(lease_until) AS at FROM agent_jobs INDEXED BY ${LEASE_INDEX} WHERE status = 'running'`;

// The earliest a coordinator's hold on a compensating job ends (another coordinator may take it then): few such jobs, their own index.
const NEXT_COMPENSATION_END_SQL = `SELECT MIN(lease_until) AS at FROM agent_jobs INDEXED BY ${COMPENSATING_INDEX} WHERE status = 'compensating'`;

/**
 * How long from `now` until the reference claim could find a job that it
 * cannot find now with no other write in between: a waiting job's next run,
 * or the end of a lease (a worker's, or a coordinator's on a compensating job)
 * plus the skew margin and one ms (the claim's sweep, or another coordinator,
 * takes it back then: a lease counts as ended strictly after that cutoff). 0 when one is due already; null when none will fall due by time alone.
 */
export function msUntilDue(db: Db, now: number, skewMarginMs: number): number | null {
  const nextRun = (statement(db, NEXT_RUN_SQL).get() as { at: string | null }).at;
  const ends = [NEXT_LEASE_END_SQL, NEXT_COMPENSATION_END_SQL].map((sql) => (statement(db, sql).get() as { at: string | null }).at);
  const leaseDues = ends.map((end) => (end === null ? null : parseUtc(end) + skewMarginMs + 1));
  const dues = [nextRun === null ? null : parseUtc(nextRun), ...leaseDues].filter((at): at is number => at !== null);
  return dues.length === 0 ? null : Math.max(0, Math.min(...dues) - now);
}
