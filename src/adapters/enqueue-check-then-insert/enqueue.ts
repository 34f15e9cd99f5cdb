import { recordCreation, type EnqueueInput } from '../sqlite/sql/enqueue.js';
import { statement, type Db } from '../sqlite/store.js';
import { workBetweenCheckAndAct } from '../work-window.js';

const EXISTING = `SELECT id FROM agent_jobs WHERE idempotency_key = ? ORDER BY id LIMIT 1`;

const INSERT = `
INSERT INTO agent_jobs (idempotency_key, action, payload_json, max_attempts, next_run_at, created_at, updated_at)
VALUES (@key, @action, @payloadJson, @maxAttempts, @at, @at, @at)
RETURNING id`;

/**
 * Looks the key up, and inserts when it is absent: check, then act. The job and
 * its history row are written together, but the check is outside that
 * transaction, and without a UNIQUE constraint nothing stops two producers that
 * both saw "absent" from both inserting: two jobs for one key, each producer
 * told it created the job.
 */
export function checkThenInsert(db: Db, input: EnqueueInput, workMs: number): { created: boolean; jobId: number } {
  const existing = statement(db, EXISTING).get(input.key) as { id: number } | undefined;
  if (existing) return { created: false, jobId: existing.id };
  workBetweenCheckAndAct(workMs);
  return db
    .transaction(() => {
      const inserted = statement(db, INSERT).get(input) as { id: number };
      recordCreation(db, inserted.id, input.at);
      return { created: true, jobId: inserted.id };
    })
    .immediate();
}
