/*
 * Who wrote a row, as the history trigger sees it: every connection of the
 * drill names its process in application_name. A worker's graphile id is the
 * drill's worker id and its process id (`w1#4242`): graphile's
 * forceUnlockWorkers unlocks every job of an id, so a restarted `w1` must never
 * share one with the dead `w1` whose jobs the coordinator frees.
 */

import type { Actor } from '../../kernel/vocabulary.js';

const SEPARATOR = '#';

/** This process's graphile worker id for the drill's worker `workerId`. */
export function graphileWorkerId(workerId: string): string {
  return `${workerId}${SEPARATOR}${process.pid}`;
}

/** The drill's worker id inside a graphile worker id (`w1#4242` is w1). */
export function drillWorkerOf(graphileId: string): string {
  const at = graphileId.lastIndexOf(SEPARATOR);
  return at < 0 ? graphileId : graphileId.slice(0, at);
}

/** The application_name a connection of this role shows the trigger. */
export function applicationName(actor: Actor, who = ''): string {
  return `qd:${actor}${who === '' ? '' : `:${who}`}`.slice(0, 63);
}

/** The actor and its id behind an application_name; a connection that is not the drill's (psql) is a person. */
export function writerOf(app: string): { actor: Actor; who: string | null } {
  const match = /^qd:(producer|worker|coordinator|human)(?::(.*))?$/.exec(app);
  if (!match) return { actor: 'human', who: app === '' ? null : app };
  return { actor: match[1] as Actor, who: match[2] ?? null };
}
