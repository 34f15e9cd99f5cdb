import { utc } from '../../../kernel/clock.js';
import type { JobRow } from '../../job.js';
import { type Db, statement } from '../store.js';

/**
 * The coordinator's take of a compensating job. One is free when nobody holds
 * it, when this coordinator held it (it comes back to a saga it paused), or
 * when its holder's lease expired (a coordinator that died mid-compensation).
 * The fence moves on every time. The look-up reads the compensating jobs'
 * index (schema.ts), never the whole table.
 */
export const CLAIM_COMPENSATION_SQL = `
UPDATE agent_jobs
SET leased_by = @coordinatorId, lease_until = @leaseUntil, lease_fence = lease_fence + 1, updated_at = @at
WHERE id = (
  SELECT id FROM agent_jobs
  WHERE status = 'compensating' AND (leased_by IS NULL OR leased_by = @coordinatorId OR lease_until < @cutoff)
  ORDER BY id LIMIT 1
)
RETURNING *`;

/** The coordinator takes the oldest compensating job under a fresh, fenced lease; null when none waits. */
export function claimCompensation(db: Db, input: { coordinatorId: string; now: number; leaseMs: number; skewMarginMs: number }): JobRow | null {
  return db
    .transaction(
      () =>
        (statement(db, CLAIM_COMPENSATION_SQL).get({
          coordinatorId: input.coordinatorId,
          leaseUntil: utc(input.now + input.leaseMs),
          cutoff: utc(input.now - input.skewMarginMs),
          at: utc(input.now),
        }) as JobRow | undefined) ?? null,
    )
    .immediate();
}
