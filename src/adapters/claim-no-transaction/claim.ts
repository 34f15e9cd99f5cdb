import { utc } from '../../kernel/clock.js';
import type { JobRow } from '../../queue/job.js';
import { recordClaim } from '../sqlite/sql/claim.js';
import { statement, type Db } from '../sqlite/store.js';
import { workBetweenCheckAndAct } from '../work-window.js';

export interface LookUpThenUpdateInput {
  workerId: string;
  now: number;
  leaseMs: number;
  /** How long the work between the look-up and the update takes. */
  workMs: number;
}

// The reference's look-up, word for word.
const NEXT = `
SELECT id, status FROM agent_jobs
WHERE status IN ('pending', 'retry') AND next_run_at <= @at AND attempts < max_attempts
ORDER BY created_at, id
LIMIT 1`;

// The mistake: the id alone says which row; nothing says it is still free.
const TAKE = `
UPDATE agent_jobs
SET status = 'running', leased_by = @workerId, lease_until = @leaseUntil,
    attempts = attempts + 1, lease_fence = lease_fence + 1, updated_at = @at
WHERE id = @id
RETURNING *`;

/**
 * Claims as a look-up, then an update, each its own autocommit statement: no
 * transaction holds the two together and the update does not check the job is
 * still pending or retrying. Two workers that look up in the same moment both
 * find the same job, and both updates succeed (running to running is no
 * status change, so the store's transition trigger does not object): two
 * workers hold one job, each told it won.
 */
export function lookUpThenUpdate(db: Db, input: LookUpThenUpdateInput): JobRow | null {
  const at = utc(input.now);
  const next = statement(db, NEXT).get({ at }) as { id: number; status: 'pending' | 'retry' } | undefined;
  if (!next) return null;
  workBetweenCheckAndAct(input.workMs);
  const job = statement(db, TAKE).get({ id: next.id, workerId: input.workerId, leaseUntil: utc(input.now + input.leaseMs), at }) as JobRow;
  // What the look-up saw, which is what this code believes it changed.
  recordClaim(db, job, next.status, at);
  return job;
}
