import type PgBoss from 'pg-boss';
import { storableError } from '../../kernel/redact.js';
import { EnqueueError, type EnqueueRequest, type EnqueueResult } from '../../port/adapter.js';
import { QUEUE_NAME } from './boss.js';
import type { DrillJobData } from './job-data.js';
import { jobIdForKey } from './job-id.js';

// SQLSTATE classes after which the statement may or may not have committed: a lost connection, an operator's shutdown.
const INDEFINITE_CLASSES = ['08', '57'];

function isDefinite(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  // The server answered with an error: the statement, its own transaction, did not commit.
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !INDEFINITE_CLASSES.includes(code.slice(0, 2));
}

/**
 * pg-boss's send with the key's job id: created when pg-boss returns the id;
 * when it returns null its insert met a job with that id (ON CONFLICT DO
 * NOTHING), which is looked up (archived too) before answering deduplicated.
 * The retry budget is set on each job: pg-boss's own default is 2 retries.
 */
export async function enqueuePgBoss(boss: PgBoss, request: EnqueueRequest): Promise<EnqueueResult> {
  const id = jobIdForKey(request.key);
  const data: DrillJobData = { key: request.key, action: request.action, payload: request.payload, maxAttempts: request.maxAttempts };
  let sent: string | null;
  try {
    sent = await boss.send(QUEUE_NAME, data, { id, retryLimit: Math.max(0, request.maxAttempts - 1) });
  } catch (error) {
    throw new EnqueueError(isDefinite(error), `pg-boss send failed: ${storableError(error)}`, { cause: error });
  }
  if (sent !== null) return { outcome: 'created', jobId: sent };
  const existing = await boss.getJobById(QUEUE_NAME, id, { includeArchive: true }).catch(() => null);
  if (existing) return { outcome: 'deduplicated', jobId: id };
  throw new EnqueueError(false, `pg-boss send returned null and no job ${id} can be found (the queue may be missing)`);
}
