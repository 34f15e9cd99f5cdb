import { assertTransition } from '../../../port/states.js';
import type { HistoryEventInput } from '../../history-event.js';
import { type Db, statement } from '../store.js';

/** One history row: a transition, or a refused write. */
export interface EventInput extends HistoryEventInput {
  at: string;
}

const SQL = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at, delay_ms)
VALUES (@jobId, @kind, @from, @to, @attempt, @fence, @worker, @actor, @reason, @at, @delayMs)`;

/** Appends one history row; a transition is checked against the state machine first. */
export function appendEvent(db: Db, event: EventInput): void {
  if (event.kind === 'transition') assertTransition(event.from, event.to, event.actor);
  statement(db, SQL).run({ ...event, delayMs: event.delayMs ?? null });
}
