import { InternalError } from '../kernel/errors.js';

/*
 * The job state machine, described once, here.
 *
 *   (new) --enqueue--> pending --claim--> running --complete--> done
 *                                 ^          |  \
 *                                 |          |   +--review / exhausted / unknown outcome--> review
 *          retry <--fail, lease expired------+                                                |
 *            |                                                                                 |
 *            +--claim--> running                       review --human action only--> pending <-+
 *
 *   running --a step failed for good--> compensating --saga compensated, or compensation failed--> review
 *
 * `done` is final. Nothing leaves `review` but a recorded human action: never a
 * timer, never a worker. A running job whose lease expired goes back to `retry`
 * (or to `review` when it has no attempts left), and only then can be claimed again.
 * A job whose plan failed part-way waits in `compensating` until the coordinator
 * has undone its completed steps in reverse order; it then goes to `review`, as
 * compensated or as a failed compensation needing manual recovery.
 */

export { ACTORS, type Actor, JOB_STATUSES, type JobStatus } from '../kernel/vocabulary.js';

import type { Actor, JobStatus } from '../kernel/vocabulary.js';

interface Edge {
  from: JobStatus | null;
  to: JobStatus;
  actors: readonly Actor[];
}

/** Every allowed state change; `from: null` is the creation of a job. */
export const ALLOWED_TRANSITIONS: readonly Edge[] = [
  { from: null, to: 'pending', actors: ['producer'] },
  { from: 'pending', to: 'running', actors: ['worker'] },
  { from: 'retry', to: 'running', actors: ['worker'] },
  { from: 'running', to: 'done', actors: ['worker'] },
  { from: 'running', to: 'retry', actors: ['worker', 'coordinator'] },
  { from: 'running', to: 'review', actors: ['worker', 'coordinator'] },
  { from: 'running', to: 'compensating', actors: ['worker'] },
  { from: 'compensating', to: 'review', actors: ['coordinator'] },
  { from: 'review', to: 'pending', actors: ['human'] },
];

/** Whether `from -> to` by `actor` is an allowed change. */
export function isAllowedTransition(from: JobStatus | null, to: JobStatus, actor?: Actor): boolean {
  return ALLOWED_TRANSITIONS.some((edge) => edge.from === from && edge.to === to && (actor === undefined || edge.actors.includes(actor)));
}

/** Thrown when code tries a change the state machine does not allow: a bug, never a retry. */
export class TransitionError extends InternalError {
  readonly code = 'QD_TRANSITION_NOT_ALLOWED';
  constructor(
    readonly from: JobStatus | null,
    readonly to: JobStatus,
    readonly actor: Actor,
  ) {
    super(`transition ${from ?? '(new)'} -> ${to} by ${actor} is not allowed`);
  }
}

/** Throws TransitionError unless `from -> to` by `actor` is allowed. */
export function assertTransition(from: JobStatus | null, to: JobStatus, actor: Actor): void {
  if (!isAllowedTransition(from, to, actor)) throw new TransitionError(from, to, actor);
}

/**
 * A SQLite trigger generated from the same table, so no writer of the file,
 * ours or foreign, can make a change the machine does not allow.
 */
export function transitionTriggerSql(table: string): string {
  const allowed = ALLOWED_TRANSITIONS.filter((e) => e.from !== null)
    .map((e) => `'${e.from}>${e.to}'`)
    .join(', ');
  return `
CREATE TRIGGER IF NOT EXISTS ${table}_allowed_transitions
BEFORE UPDATE OF status ON ${table}
WHEN NEW.status IS NOT OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${allowed})
BEGIN
  SELECT RAISE(ABORT, 'QD_TRANSITION_NOT_ALLOWED');
END;
CREATE TRIGGER IF NOT EXISTS ${table}_created_pending
BEFORE INSERT ON ${table}
WHEN NEW.status IS NOT 'pending'
BEGIN
  SELECT RAISE(ABORT, 'QD_TRANSITION_NOT_ALLOWED');
END;`;
}
