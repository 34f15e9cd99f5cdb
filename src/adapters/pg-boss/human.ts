import type pg from 'pg';
import type { HumanOps } from '../../port/adapter.js';
import type { SagaStore } from '../../port/checkpoint.js';
import { affectedOf } from './affected.js';
import { openBoss, QUEUE_NAME } from './boss.js';
import { attemptsOf } from './jobs.js';

const JOB_SQL = `SELECT retry_count, started_on, data->>'key' AS key FROM job WHERE name = $1 AND id = $2 AND state = 'failed'`;

// The adapter spent a job's remaining attempts to send it to review (settle.ts); a person's retry gives them back: the
// producer's budget, or one more attempt when that is used up (as the reference's requeue: max(max_attempts, attempts + 1)).
// Set before pg-boss's retry, which adds the one (retry_limit + 1): so a claim right after the retry has the whole budget.
const RESTORE_BUDGET = `
UPDATE job SET retry_limit = GREATEST(retry_limit, (data->>'maxAttempts')::int - 2)
WHERE name = $1 AND id = $2 AND state = 'failed' AND jsonb_typeof(data->'maxAttempts') = 'number'`;

/**
 * A person's requeue: pg-boss's retry() of a failed job (state retry,
 * retry_limit + 1), made on a connection named for the person, so the history
 * shows who, with the attempts review took away given back just before.
 *
 * The checkpoints (the approval, then the requeue) go to the saga file beside
 * the run, which cannot share pg-boss's transaction, so they are written
 * first: the job can be fetched the moment retry() commits, and its next
 * holder must find the approval there. They are written under the epoch that
 * fetch will give: retry_count + 1 more than now (plans.js fetchNextJob raises
 * retry_count at every fetch but the first), attemptsOf(row) + 1. Under the
 * current epoch, a holder that fetched first would have raised the file's
 * floor past it and the approval would be refused. Raising the floor now
 * fences off only the holders of the job's earlier attempts, which it has left.
 *
 * When retry() then matches nothing, the job left the failed state after it
 * was read: another person's requeue, whose delivery gets the same approval
 * of the same prepared step (or it was deleted). Nothing runs unapproved and
 * no job waits in review behind an approval no requeue follows: answered false,
 * as for a job not in review. What two stores cannot avoid: a retry() that
 * throws (the server lost) or this process dying between the two leaves the
 * job in review with its approval written (and nothing run), and `approve`
 * then finds no step waiting. The other order had no residue but the race
 * itself: a holder that fetched first never saw the approval and sent the job
 * back to review, approval after approval, past its attempts.
 */
export function humanOps(url: string, schema: string, pool: pg.Pool, saga: SagaStore): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const { rows } = await pool.query<{ retry_count: number; started_on: Date | null; key: string }>(JOB_SQL, [QUEUE_NAME, jobId]);
      const row = rows[0];
      if (!row) return false;
      const next = attemptsOf(row) + 1;
      const log = await saga.logFor({ jobId, attempt: next, epoch: next, holder: `human:${by}` });
      if (checkpoint) await log.append(checkpoint);
      await log.append({ stepId: '(job)', action: 'requeue', key: row.key, status: 'success', detail: note });
      await pool.query(RESTORE_BUDGET, [QUEUE_NAME, jobId]);
      const boss = openBoss(url, schema, 'human', by, { max: 1 });
      try {
        await boss.start();
        return affectedOf(await boss.retry(QUEUE_NAME, jobId)) !== 0;
      } finally {
        await boss.stop({ graceful: false, wait: true });
      }
    },
  };
}
