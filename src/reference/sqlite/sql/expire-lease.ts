import { type Db, statement } from '../store.js';

// Long enough before any clock a drill uses that no skew margin brings it back.
const LONG_AGO = '1970-01-01T00:00:00.000Z';

/** Moves a held lease's end into the past, as if its holder had stopped renewing it long ago. No event: the lease simply ran out. */
export function expireLease(db: Db, jobId: number): void {
  statement(db, `UPDATE agent_jobs SET lease_until = ? WHERE id = ? AND status IN ('running', 'compensating') AND leased_by IS NOT NULL`).run(
    LONG_AGO,
    jobId,
  );
}
