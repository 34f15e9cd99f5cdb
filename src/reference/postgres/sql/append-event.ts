import { type Queryable, rows } from '../../../adapters/pg/queryable.js';
import { assertTransition } from '../../../port/states.js';
import type { HistoryEventInput } from '../../history-event.js';

/**
 * One history row. `at`: when the change it records was written (the server's clock of the job's own UPDATE, to the
 * microsecond, as text); absent, the server's clock when the row is written.
 */
export type EventInput = HistoryEventInput & { at?: string };

// A change and its row are two statements: the client may be starved between them (a loaded machine), so the row
// takes the change's own time where it is given. A retry's delay runs from that time (next_run_at = the same
// clock + the delay); stamped later, the history would show the next claim coming before the delay was up.
const SQL = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, delay_ms, at)
VALUES (@jobId, @kind, @from, @to, @attempt, @fence, @worker, @actor, @reason, @delayMs, COALESCE(@at::timestamptz, clock_timestamp()))`;

/**
 * Appends one history row, in the caller's transaction. A transition is checked
 * against the state machine first: the actor is the code's to check, as the trigger cannot see it.
 */
export async function appendEvent(db: Queryable, event: EventInput): Promise<void> {
  if (event.kind === 'transition') assertTransition(event.from, event.to, event.actor);
  await rows(db, SQL, { ...event, delayMs: event.delayMs ?? null, at: event.at ?? null });
}
