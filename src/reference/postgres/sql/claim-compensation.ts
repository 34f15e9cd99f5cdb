import { CLOCK, firstRow, millis, type Queryable } from '../../../adapters/pg/queryable.js';
import type { JobRow } from '../../job.js';
import { jobColumns } from './columns.js';

// A compensating job is free when nobody holds it, when this coordinator held
// it (it comes back to a saga it paused), or when its holder's lease expired
// (a coordinator that died mid-compensation). The epoch moves on every time;
// the status does not, so no history row (as the SQLite store). One statement.
const TAKE = `
WITH next AS (
  SELECT id FROM agent_jobs
  WHERE status = 'compensating'
    AND (leased_by IS NULL OR leased_by = @coordinatorId OR lease_until < clock_timestamp() - ${millis('@skewMarginMs')})
  ORDER BY id
  LIMIT 1
  FOR NO KEY UPDATE SKIP LOCKED
)
UPDATE agent_jobs AS j
SET leased_by = @coordinatorId, lease_until = clock.now + ${millis('@leaseMs')}, lease_fence = j.lease_fence + 1, updated_at = clock.now
FROM next, ${CLOCK}
WHERE j.id = next.id AND j.status = 'compensating'
RETURNING ${jobColumns('j')}`;

/** The coordinator takes the oldest compensating job under a fresh, fenced lease; null when none waits. */
export async function claimCompensation(
  db: Queryable,
  input: { coordinatorId: string; leaseMs: number; skewMarginMs: number },
): Promise<JobRow | null> {
  return (await firstRow<JobRow>(db, TAKE, { ...input })) ?? null;
}
