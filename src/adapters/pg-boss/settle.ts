import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { JobStatus } from '../../kernel/vocabulary.js';
import type { Claim, Settlement, WriteResult } from '../../port/delivery.js';
import { affectedOf } from './affected.js';
import { QUEUE_NAME } from './boss.js';
import type { DrillOutput } from './job-data.js';
import { statusOf } from './states.js';

/*
 * A settlement as pg-boss's own writes. None of them is fenced: pg-boss's
 * complete matches the id and state 'active' (any holder's), its fail any
 * state before completed (plans.js completeJobs, failJobsById), and neither
 * throws when nothing matched. So a late write from a holder that lost the job
 * is applied whenever the job is active again under someone else, and the
 * adapter reports it as pg-boss did: applied. Only a write that matched no row
 * at all is reported refused, because that much pg-boss's answer (`affected`)
 * does tell.
 */

// pg-boss 10 has no "fail for good": its fail goes to retry while retry_count < retry_limit. To send a job to review
// (pg-boss's failed state) on any attempt, its own retry_limit is brought down to the attempts used first, by the adapter,
// guarded by the holder's epoch; pg-boss's fail then moves it to failed, as on a last attempt.
const SPEND_REMAINING_ATTEMPTS = `
UPDATE job SET retry_limit = retry_count
WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3`;

const STATE_SQL = 'SELECT state::text AS state, completed_on FROM job WHERE name = $1 AND id = $2';

async function stateNow(pool: pg.Pool, jobId: string): Promise<JobStatus | null> {
  const { rows } = await pool.query<{ state: string; completed_on: Date | null }>(STATE_SQL, [QUEUE_NAME, jobId]);
  const row = rows[0];
  return row ? statusOf(row.state, row.completed_on) : null;
}

function noMatch(write: string): WriteResult {
  return { ok: false, refused: `pg-boss ${write} matched no job (it was no longer active: taken back, or finished)` };
}

async function fail(boss: PgBoss, pool: pg.Pool, claim: Claim, output: DrillOutput): Promise<WriteResult> {
  const result = await boss.fail(QUEUE_NAME, claim.jobId, output as object);
  if (affectedOf(result) === 0) return noMatch('fail');
  return { ok: true, status: (await stateNow(pool, claim.jobId)) ?? 'retry' };
}

/** The one write a settlement asks for (none for a holder that knows it lost the job). */
export async function settlePgBoss(boss: PgBoss, pool: pg.Pool, claim: Claim, settlement: Settlement): Promise<WriteResult | null> {
  switch (settlement.kind) {
    case 'done': {
      const result = await boss.complete(QUEUE_NAME, claim.jobId, { digest: settlement.digest });
      return affectedOf(result) === 0 ? noMatch('complete') : { ok: true, status: 'done' };
    }
    case 'retry':
      return fail(boss, pool, claim, { error: settlement.error });
    case 'review':
      await pool.query(SPEND_REMAINING_ATTEMPTS, [QUEUE_NAME, claim.jobId, claim.epoch - 1]);
      return fail(boss, pool, claim, {
        reviewReason: settlement.reason,
        outcome: settlement.awaitingApproval ? 'awaiting_approval' : 'review',
        ...(settlement.error !== undefined ? { error: settlement.error } : {}),
      });
    case 'compensate':
      // pg-boss has no state for a saga waiting to be undone, and no hand-off to a coordinator: the job goes to review,
      // its completed steps not undone, and the report's saga-compensation says so.
      await pool.query(SPEND_REMAINING_ATTEMPTS, [QUEUE_NAME, claim.jobId, claim.epoch - 1]);
      return fail(boss, pool, claim, {
        reviewReason: `needs compensation, which pg-boss cannot hand to a coordinator: ${settlement.reason}`,
        outcome: 'review',
        error: settlement.error,
      });
    case 'lease_lost':
      return null;
    default: {
      const unreachable: never = settlement;
      throw new Error(`unknown settlement ${JSON.stringify(unreachable)}`);
    }
  }
}
