import { firstRow, type Queryable } from '../../../adapters/pg/queryable.js';
import { HarnessError } from '../../../kernel/errors.js';
import { creationEvent } from '../../history-event.js';
import { appendEvent } from './append-event.js';
import { wakeIdle } from './wake.js';

export interface EnqueueInput {
  key: string;
  action: string;
  payloadJson: string;
  maxAttempts: number;
}

// One statement decides: the UNIQUE constraint, not a look-up before the insert.
// A racing insert of the same key makes this one wait for it, then do nothing
// (or go ahead, if the other rolled back). A skipped insert still uses up an
// identity value, so ids have gaps; they keep their order.
const INSERT = `
INSERT INTO agent_jobs (idempotency_key, action, payload_json, max_attempts, next_run_at, created_at, updated_at)
SELECT @key::text, @action::text, @payloadJson::text, @maxAttempts::integer, clock.now, clock.now, clock.now
FROM (SELECT clock_timestamp() AS now) AS clock
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING id`;

// A new statement, so under READ COMMITTED a new snapshot: it sees the row
// whose commit the insert waited for.
const EXISTING = `SELECT id FROM agent_jobs WHERE idempotency_key = @key`;

/** Adds a job unless one with the key exists, recording its creation and waking idle workers; run in a transaction. */
export async function enqueue(db: Queryable, input: EnqueueInput): Promise<{ created: boolean; jobId: number }> {
  const inserted = await firstRow<{ id: number }>(db, INSERT, { ...input });
  if (inserted) {
    await recordCreation(db, inserted.id);
    // A duplicate changes nothing, so only a new job wakes anyone.
    await wakeIdle(db);
    return { created: true, jobId: inserted.id };
  }
  const existing = await firstRow<{ id: number }>(db, EXISTING, { key: input.key });
  if (!existing) throw new HarnessError('QD_PG_KEY_VANISHED', `enqueue of ${JSON.stringify(input.key)} conflicted, yet no job holds the key`);
  return { created: false, jobId: existing.id };
}

/** Records a job's creation in the history: the first line of its life. */
export async function recordCreation(db: Queryable, jobId: number): Promise<void> {
  await appendEvent(db, creationEvent(jobId));
}
