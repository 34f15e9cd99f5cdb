import { statement, type Db } from '../store.js';
import { appendEvent } from './append-event.js';

export interface EnqueueInput {
  key: string;
  action: string;
  payloadJson: string;
  maxAttempts: number;
  at: string;
}

// One statement decides: the UNIQUE constraint, not a look-up before the insert
// (check-then-insert lets two racing producers both see "absent").
const INSERT = `
INSERT INTO agent_jobs (idempotency_key, action, payload_json, max_attempts, next_run_at, created_at, updated_at)
VALUES (@key, @action, @payloadJson, @maxAttempts, @at, @at, @at)
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING id`;

const EXISTING = `SELECT id FROM agent_jobs WHERE idempotency_key = ?`;

/** Adds a job unless one with the key exists; says whether it created it. */
export function enqueue(db: Db, input: EnqueueInput): { created: boolean; jobId: number } {
  return db
    .transaction(() => {
      const inserted = statement(db, INSERT).get(input) as { id: number } | undefined;
      if (inserted) {
        recordCreation(db, inserted.id, input.at);
        return { created: true, jobId: inserted.id };
      }
      const existing = statement(db, EXISTING).get(input.key) as { id: number };
      return { created: false, jobId: existing.id };
    })
    .immediate();
}

/** Records a job's creation in the history: the first line of its life. */
export function recordCreation(db: Db, jobId: number, at: string): void {
  appendEvent(db, { jobId, kind: 'transition', from: null, to: 'pending', attempt: 0, fence: 0, worker: null, actor: 'producer', reason: 'enqueued', at });
}
