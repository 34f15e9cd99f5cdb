import { utc } from '../clock.js';
import type { JobRow } from '../job.js';
import type { Actor } from '../states.js';
import { statement, type Db } from '../store.js';
import { appendEvent } from './append-event.js';

export interface SweepInput {
  now: number;
  /** A lease counts as expired only this long after its end: slack for clock skew between processes. */
  skewMarginMs: number;
  actor: Actor;
  worker: string | null;
}

const EXPIRED = `
SELECT * FROM agent_jobs
WHERE status = 'running' AND lease_until < @cutoff
ORDER BY id`;

// Guarded by the fence read in the same transaction, so a heartbeat that just
// renewed the lease cannot be overwritten.
const RELEASE = `
UPDATE agent_jobs
SET status = @to, leased_by = NULL, lease_until = NULL, next_run_at = @at, updated_at = @at,
    review_reason = CASE WHEN @to = 'review' THEN @reason ELSE review_reason END
WHERE id = @id AND status = 'running' AND lease_fence = @fence`;

/**
 * Takes back every job whose lease expired (its worker died, hung, or lost the
 * race with its own lease): to `retry`, or to `review` when it has no attempts
 * left. Run inside the caller's write transaction. Returns the jobs released.
 */
export function sweepExpiredLeases(db: Db, input: SweepInput): Array<{ jobId: number; to: 'retry' | 'review' }> {
  const at = utc(input.now);
  const expired = statement(db, EXPIRED).all({ cutoff: utc(input.now - input.skewMarginMs) }) as JobRow[];
  const released: Array<{ jobId: number; to: 'retry' | 'review' }> = [];
  for (const job of expired) {
    const to = job.attempts >= job.max_attempts ? 'review' : 'retry';
    const reason =
      to === 'review'
        ? `lease of ${job.leased_by} expired at ${job.lease_until} on its last attempt (${job.attempts} of ${job.max_attempts})`
        : `lease of ${job.leased_by} expired at ${job.lease_until}`;
    const changed = statement(db, RELEASE).run({ id: job.id, fence: job.lease_fence, to, at, reason }).changes;
    if (changed === 0) continue;
    appendEvent(db, {
      jobId: job.id,
      kind: 'transition',
      from: 'running',
      to,
      attempt: job.attempts,
      fence: job.lease_fence,
      worker: input.worker,
      actor: input.actor,
      reason,
      at,
    });
    released.push({ jobId: job.id, to });
  }
  return released;
}
