import { utc } from '../../../kernel/clock.js';
import type { JobRow } from '../../../queue/job.js';
import { statement, type Db } from '../store.js';
import { appendEvent } from './append-event.js';
import { sweepExpiredLeases } from './sweep-expired-leases.js';

export interface ClaimInput {
  workerId: string;
  now: number;
  leaseMs: number;
  skewMarginMs: number;
}

// Oldest first, as seed 000 orders it. Unlike seed 000, a crashed worker's job is
// not stuck in `running`: the sweep in the same transaction has already put every
// expired lease back to `retry`.
const NEXT = `
SELECT id, status FROM agent_jobs
WHERE status IN ('pending', 'retry') AND next_run_at <= @at AND attempts < max_attempts
ORDER BY created_at, id
LIMIT 1`;

const TAKE = `
UPDATE agent_jobs
SET status = 'running', leased_by = @workerId, lease_until = @leaseUntil,
    attempts = attempts + 1, lease_fence = lease_fence + 1, updated_at = @at
WHERE id = @id AND status IN ('pending', 'retry')
RETURNING *`;

/**
 * Claims the oldest ready job in one immediate write transaction (no other
 * writer can slip between the look-up and the update), counting the attempt and
 * taking a fresh lease with a new fence. Null when nothing is ready.
 */
export function claim(db: Db, input: ClaimInput): JobRow | null {
  return db
    .transaction((): JobRow | null => {
      const at = utc(input.now);
      sweepExpiredLeases(db, { now: input.now, skewMarginMs: input.skewMarginMs, actor: 'worker', worker: input.workerId });
      const next = statement(db, NEXT).get({ at }) as { id: number; status: 'pending' | 'retry' } | undefined;
      if (!next) return null;
      const job = statement(db, TAKE).get({
        id: next.id,
        workerId: input.workerId,
        leaseUntil: utc(input.now + input.leaseMs),
        at,
      }) as JobRow;
      recordClaim(db, job, next.status, at);
      return job;
    })
    .immediate();
}

/** Records a claim in the history: the job moved from `from` to running under its new lease. */
export function recordClaim(db: Db, job: JobRow, from: 'pending' | 'retry', at: string): void {
  appendEvent(db, {
    jobId: job.id,
    kind: 'transition',
    from,
    to: 'running',
    attempt: job.attempts,
    fence: job.lease_fence,
    worker: job.leased_by,
    actor: 'worker',
    reason: `claimed by ${job.leased_by}, lease until ${job.lease_until}`,
    at,
  });
}
