import { utc } from '../../kernel/clock.js';
import type { JobRow } from '../../queue/job.js';
import { recordClaim } from '../sqlite/sql/claim.js';
import { statement, type Db } from '../sqlite/store.js';

// Seed 000's claim_one, as written: only pending and retry jobs are looked at,
// so a job whose worker died stays `running` and is never claimed again.
const NEXT = `
SELECT id, status FROM agent_jobs
WHERE status IN ('pending', 'retry')
  AND next_run_at <= @at
  AND (lease_until IS NULL OR lease_until < @at)
  AND attempts < max_attempts
ORDER BY created_at, id
LIMIT 1`;

const TAKE = `
UPDATE agent_jobs
SET status = 'running', leased_by = @workerId, lease_until = @leaseUntil,
    attempts = attempts + 1, lease_fence = lease_fence + 1, updated_at = @at
WHERE id = @id
RETURNING *`;

/** The seed's claim: BEGIN IMMEDIATE, oldest pending or retry job; no expired lease is ever taken back. */
export function seedLiteralClaim(db: Db, input: { workerId: string; now: number; leaseMs: number }): JobRow | null {
  return db
    .transaction((): JobRow | null => {
      const at = utc(input.now);
      const next = statement(db, NEXT).get({ at }) as { id: number; status: 'pending' | 'retry' } | undefined;
      if (!next) return null;
      const job = statement(db, TAKE).get({ id: next.id, workerId: input.workerId, leaseUntil: utc(input.now + input.leaseMs), at }) as JobRow;
      // The history is ours, not the seed's: kept so a drill can show what happened.
      recordClaim(db, job, next.status, at);
      return job;
    })
    .immediate();
}
