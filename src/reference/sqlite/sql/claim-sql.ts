import { CLAIM_INDEX } from '../schema.js';
import type { ClaimRules } from './claim-rules.js';

/** A claim's two statements: the look-up of the next job, and the take of it under a fresh lease. */
export interface ClaimSql {
  lookUp: string;
  take: string;
}

const quoted = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ');

/**
 * Writes a claim's statements from its rules, once per claim operation (the
 * store prepares each text once per connection). The take always sets the
 * status, the holder, the lease's end and a new fence: a claim without a fresh
 * fence could not be told apart from the one before it.
 */
export function claimSql(rules: ClaimRules): ClaimSql {
  const ready = [`(status IN ('pending', 'retry') AND ${rules.ready})`, ...rules.alsoFrom.map((s) => `(status = '${s.status}' AND ${s.ready})`)];
  // Only pending and retry jobs: the claim index holds exactly those, in this order (schema.ts). A claim that also
  // takes from other states (a variant's) cannot use it, and reads the table as before.
  const indexed = rules.alsoFrom.length === 0 ? ` INDEXED BY ${CLAIM_INDEX}` : '';
  const lookUp = `
SELECT id, status FROM agent_jobs${indexed}
WHERE ${ready.join('\n   OR ')}
ORDER BY created_at, id
LIMIT 1`;
  const counted = rules.countsAttempt ? 'attempts = attempts + 1, ' : '';
  const guard = rules.guard === 'status' ? ` AND status IN (${quoted(['pending', 'retry', ...rules.alsoFrom.map((s) => s.status)])})` : '';
  const take = `
UPDATE agent_jobs
SET status = 'running', leased_by = @workerId, lease_until = @leaseUntil,
    ${counted}lease_fence = lease_fence + 1, updated_at = @at
WHERE id = @id${guard}
RETURNING *`;
  return { lookUp, take };
}
