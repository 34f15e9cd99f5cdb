import type pg from 'pg';
import type { HumanOps } from '../../port/adapter.js';
import type { SagaStore } from '../../port/checkpoint.js';
import { affectedOf } from './affected.js';
import { openBoss, QUEUE_NAME } from './boss.js';
import { attemptsOf } from './jobs.js';

const JOB_SQL = `SELECT retry_count, started_on, data->>'key' AS key FROM job WHERE name = $1 AND id = $2 AND state = 'failed'`;

// The adapter spent a job's remaining attempts to send it to review (settle.ts); a person's retry gives them back: the
// producer's budget, or one more attempt when that is used up (as the reference's requeue: max(max_attempts, attempts + 1)).
const RESTORE_BUDGET = `
UPDATE job SET retry_limit = GREATEST(retry_limit, (data->>'maxAttempts')::int - 1)
WHERE name = $1 AND id = $2 AND jsonb_typeof(data->'maxAttempts') = 'number'`;

/**
 * A person's requeue: pg-boss's retry() of a failed job (state retry,
 * retry_limit + 1), made on a connection named for the person, so the history
 * shows who; then the attempts review took away are given back. The checkpoints (the approval, then the requeue) are
 * written after, to the saga file beside the run: not in one transaction with
 * pg-boss's write, which the file cannot share.
 */
export function humanOps(url: string, schema: string, pool: pg.Pool, saga: SagaStore): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const { rows } = await pool.query<{ retry_count: number; started_on: Date | null; key: string }>(JOB_SQL, [QUEUE_NAME, jobId]);
      const row = rows[0];
      if (!row) return false;
      const boss = openBoss(url, schema, 'human', by, { max: 1 });
      let affected: number;
      try {
        await boss.start();
        affected = affectedOf(await boss.retry(QUEUE_NAME, jobId));
      } finally {
        await boss.stop({ graceful: false, wait: true });
      }
      if (affected === 0) return false;
      await pool.query(RESTORE_BUDGET, [QUEUE_NAME, jobId]);
      const attempt = attemptsOf(row);
      const log = await saga.logFor({ jobId, attempt, epoch: attempt, holder: `human:${by}` });
      if (checkpoint) await log.append(checkpoint);
      await log.append({ stepId: '(job)', action: 'requeue', key: row.key, status: 'success', detail: note });
      return true;
    },
  };
}
