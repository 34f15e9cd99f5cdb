import { type Queryable, rows } from '../../../adapters/pg/queryable.js';
import { assertTransition } from '../../../port/states.js';
import type { HistoryEventInput } from '../../history-event.js';

/** One history row; `at` is the server's clock when it is written. */
export type EventInput = HistoryEventInput;

// `at` is the column's default: the server's clock when the row is written.
const SQL = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, delay_ms)
VALUES (@jobId, @kind, @from, @to, @attempt, @fence, @worker, @actor, @reason, @delayMs)`;

/**
 * Appends one history row, in the caller's transaction. A transition is checked
 * against the state machine first: the actor is the code's to check, as the trigger cannot see it.
 */
export async function appendEvent(db: Queryable, event: EventInput): Promise<void> {
  if (event.kind === 'transition') assertTransition(event.from, event.to, event.actor);
  await rows(db, SQL, { ...event, delayMs: event.delayMs ?? null });
}
