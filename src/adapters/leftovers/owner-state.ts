import type { OwnerMark } from './owner-mark.js';
import type { HostIdentity, ProcessLook } from './process-identity.js';

/*
 * Whether the drill that made something on a server is gone, judged from its
 * owner mark alone (./owner-mark.ts), never from a name: a name only says
 * queue-drill's naming was used, not by whom nor whether they are done.
 *
 *   - no mark: left alone (made by a queue-drill without marks, by a test, or
 *     caught between being made and being marked);
 *   - kept (--keep): left alone, unless kept ones are asked for too;
 *   - made on this host: gone when its harness process is (dead, or its pid
 *     now another process's, or the host has booted since); running else,
 *     whatever its lease says (a stopped harness is still running);
 *   - made on another host: gone when its lease lapsed, running else.
 */

/** What a leftover's owner is now. `gone` is the only state that is removed (and `kept`, when asked). */
export type OwnerState = 'gone' | 'running' | 'kept' | 'unmarked';

/** The state with its reason, in words for a person. */
export interface OwnerVerdict {
  state: OwnerState;
  why: string;
}

/** What the judge may look at besides the mark: this host, its processes, and the lease as the server sees it. */
export interface OwnerFacts {
  here: HostIdentity;
  lookAt(pid: number): ProcessLook;
  /** Whether the lease is live by the server's clock; null when the server keeps none for it (no renewal recorded). */
  leaseLive: boolean | null;
}

/** The verdict on a leftover marked `mark` (null: unmarked). */
export function ownerState(mark: OwnerMark | null, facts: OwnerFacts): OwnerVerdict {
  if (mark === null) return { state: 'unmarked', why: 'no owner mark: not known to be a drill queue-drill can judge' };
  if (mark.kept) return { state: 'kept', why: `kept by --keep (drill pid ${mark.pid} on ${mark.host})` };
  if (mark.host !== facts.here.host) return onAnotherHost(mark, facts.leaseLive);
  const owner = `drill pid ${mark.pid} on this host`;
  if (mark.bootId !== null && facts.here.bootId !== null && mark.bootId !== facts.here.bootId) {
    return { state: 'gone', why: `${owner} is gone: the host has restarted since` };
  }
  const look = facts.lookAt(mark.pid);
  if (!look.alive) return { state: 'gone', why: `${owner} is gone` };
  if (mark.pidStart !== null && look.start !== null && mark.pidStart !== look.start) {
    return { state: 'gone', why: `${owner} is gone (the pid is another process's now)` };
  }
  return { state: 'running', why: `${owner} is running` };
}

function onAnotherHost(mark: OwnerMark, leaseLive: boolean | null): OwnerVerdict {
  const owner = `drill pid ${mark.pid} on ${mark.host}`;
  if (leaseLive === false) return { state: 'gone', why: `${owner}: its lease lapsed` };
  if (leaseLive === null) return { state: 'running', why: `${owner}: not a process of this host, and no lease to judge by` };
  return { state: 'running', why: `${owner}: its lease is live` };
}
