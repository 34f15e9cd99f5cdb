import { type Queryable, run } from '../../../adapters/pg/queryable.js';
import { wakeIdle } from './wake.js';

// Long before any clock a drill uses, so no skew margin brings it back (the SQLite store's value).
const SQL = `
UPDATE agent_jobs SET lease_until = '1970-01-01T00:00:00Z'
WHERE id = @jobId AND status IN ('running', 'compensating') AND leased_by IS NOT NULL`;

/**
 * Moves a held lease's end into the past, as if its holder had stopped renewing it long ago. No event: the lease
 * simply ran out. It wakes idle processes, though: the job is a claim's or the coordinator's to take back now, not at
 * the lease end they were waiting for. Run in a transaction (the notification is sent at its commit).
 */
export async function expireLease(db: Queryable, jobId: number): Promise<void> {
  if ((await run(db, SQL, { jobId })) > 0) await wakeIdle(db);
}
