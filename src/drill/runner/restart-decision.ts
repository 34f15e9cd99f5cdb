import type { Settings } from '../../scenarios/schema.js';

/** What becomes of a process of the drill that exited. */
export type AfterExit =
  /** Done with its part (a producer that enqueued everything): not started again. */
  | { kind: 'finished' }
  /** Not started again, for the reason given (restarts off, or used up). */
  | { kind: 'not-restarted'; why: string }
  /** Started again at this instant (epoch ms). */
  | { kind: 'restart'; at: number };

/**
 * The scenario's restart rule, as a pure decision: a producer that exited 0
 * has done its part; anything else is started again `after_ms` later, while
 * restarts are on and the process has some left.
 */
export function afterExit(
  role: { kind: 'worker' | 'coordinator' | 'producer'; restarts: number },
  exit: { exitCode: number | undefined },
  restart: Settings['restart'],
  now: number,
): AfterExit {
  if (role.kind === 'producer' && exit.exitCode === 0) return { kind: 'finished' };
  if (restart === false) return { kind: 'not-restarted', why: 'restarts off' };
  if (role.restarts >= restart.max) return { kind: 'not-restarted', why: `${role.restarts} restarts used` };
  return { kind: 'restart', at: now + restart.after_ms };
}
