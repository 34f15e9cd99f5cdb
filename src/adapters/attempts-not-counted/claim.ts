import { utc } from '../../kernel/clock.js';
import type { JobRow } from '../../queue/job.js';
import { recordClaim } from '../sqlite/sql/claim.js';
import type { ClaimInput } from '../sqlite/sql/claim.js';
import { sweepExpiredLeases } from '../sqlite/sql/sweep-expired-leases.js';
import { statement, type Db } from '../sqlite/store.js';

const NEXT = `
SELECT id, status FROM agent_jobs
WHERE status IN ('pending', 'retry') AND next_run_at <= @at AND attempts < max_attempts
ORDER BY created_at, id
LIMIT 1`;

// The mistake: no `attempts = attempts + 1`. The fence still moves, so every
// lease is still told apart; only the count of tries is never kept.
const TAKE = `
UPDATE agent_jobs
SET status = 'running', leased_by = @workerId, lease_until = @leaseUntil,
    lease_fence = lease_fence + 1, updated_at = @at
WHERE id = @id AND status IN ('pending', 'retry')
RETURNING *`;

/** The reference claim (one immediate transaction, the lease sweep first), except that it never counts the attempt. */
export function uncountedClaim(db: Db, input: ClaimInput): JobRow | null {
  return db
    .transaction((): JobRow | null => {
      const at = utc(input.now);
      sweepExpiredLeases(db, { now: input.now, skewMarginMs: input.skewMarginMs, actor: 'worker', worker: input.workerId });
      const next = statement(db, NEXT).get({ at }) as { id: number; status: 'pending' | 'retry' } | undefined;
      if (!next) return null;
      const job = statement(db, TAKE).get({ id: next.id, workerId: input.workerId, leaseUntil: utc(input.now + input.leaseMs), at }) as JobRow;
      recordClaim(db, job, next.status, at);
      return job;
    })
    .immediate();
}
