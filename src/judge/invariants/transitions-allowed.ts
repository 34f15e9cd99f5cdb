import { ACTORS as ACTOR_LIST, type Actor, JOB_STATUSES, type JobStatus } from '../../kernel/vocabulary.js';
import { isAllowedTransition } from '../../port/states.js';

const ACTORS: readonly string[] = ACTOR_LIST;

import { defineInvariant, eventLabel, evidenceList } from './support.js';

const STATUSES: readonly string[] = JOB_STATUSES;

/**
 * Every state change in the history is an edge of the state machine (src/port/states.ts)
 * taken by an actor allowed to take it; creation is null→pending by a producer.
 * Judged: each entry of the history.
 */
export const transitionsAllowed = defineInvariant({
  id: 'transitions-allowed',
  statement: 'every state change in the history is in the allowed set',
  needs: ['history'],
  judge: (evidence, found) => {
    const events = evidenceList(evidence, 'events');
    if (events.length === 0) found.note('the history is empty');
    found.judged(events.length);
    for (const event of events) {
      const where = `job ${event.jobId}: ${eventLabel(event)}`;
      if (event.kind !== 'transition' && event.kind !== 'refused') {
        found.breach(`${where}: unknown event kind ${JSON.stringify(event.kind)}`);
        continue;
      }
      if (!STATUSES.includes(event.to) || (event.from !== null && !STATUSES.includes(event.from))) {
        found.breach(`${where}: names a status the state machine does not have`);
        continue;
      }
      if (event.kind === 'refused') continue; // a refused write changed nothing
      if (!ACTORS.includes(event.actor)) {
        found.breach(`${where}: unknown actor ${JSON.stringify(event.actor)}`);
        continue;
      }
      if (!isAllowedTransition(event.from as JobStatus | null, event.to, event.actor as Actor)) {
        found.breach(`${where}: ${event.from ?? '(new)'}→${event.to} by ${event.actor} is not an allowed change`);
      }
    }
  },
});
