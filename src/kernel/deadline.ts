import { HarnessError } from './errors.js';

/*
 * A call the harness makes to something it does not control (a queue server,
 * a world host) may never answer: a frozen server holds a query for ever,
 * ignoring every signal the harness could send it. Each such call is raced
 * against a deadline, so the harness goes on (and says what hung); the call
 * itself is abandoned, not cancelled (it settles whenever it does, and nobody
 * waits for it).
 */

/** `work`, or a HarnessError naming `what` once `ms` have passed without an answer. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HarnessError('QD_DEADLINE', `${what} did not finish within ${ms} ms`)), ms);
  });
  // An abandoned call that fails later fails for nobody.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
