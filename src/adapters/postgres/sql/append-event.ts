import { assertTransition, type Actor, type JobStatus } from '../../../queue/states.js';
import { rows, type Queryable } from './queryable.js';

export interface EventInput {
  jobId: number;
  kind: 'transition' | 'refused';
  from: JobStatus | null;
  to: JobStatus;
  attempt: number;
  fence: number;
  worker: string | null;
  actor: Actor;
  reason: string;
}

// `at` is the column's default: the server's clock when the row is written.
const SQL = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason)
VALUES (@jobId, @kind, @from, @to, @attempt, @fence, @worker, @actor, @reason)`;

/** Appends one history row, in the caller's transaction; a transition is checked against the state machine first (the actor is the code's to check: the trigger cannot see it). */
export async function appendEvent(db: Queryable, event: EventInput): Promise<void> {
  if (event.kind === 'transition') assertTransition(event.from, event.to, event.actor);
  await rows(db, SQL, { ...event });
}
