import { InputError } from '../kernel/errors.js';
import { isOnThisMachine } from '../kernel/this-machine.js';

/*
 * What every restart of a queue's server shares (PostgreSQL's, Redis's): only
 * a server on this machine, and the wait until it answers again.
 */

/** Thrown when the server cannot be restarted by the harness (not on this machine, not one it can find). */
export class ServerRestartError extends InputError {
  readonly code = 'QD_SERVER_RESTART';
}

/** How long a restarted server may take to answer again. */
const BACK_WITHIN_MS = 30_000;

/** Refuses a server the harness cannot see: one not on this machine. */
export function assertOnThisMachine(url: string, what: string): URL {
  const parsed = new URL(url);
  if (!isOnThisMachine(url)) throw new ServerRestartError(`restarts only a ${what} on this machine, not one on ${parsed.hostname}`);
  return parsed;
}

/** Waits until `reachable` stops throwing (the server answers again), or rethrows its error once BACK_WITHIN_MS have passed since `started`. */
export async function answeringAgain(reachable: () => Promise<void>, started: number): Promise<void> {
  for (;;) {
    try {
      await reachable();
      return;
    } catch (error) {
      if (Date.now() - started > BACK_WITHIN_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
