import type { ErrorKind } from '../kernel/job-errors.js';

/** What the failed step did to the world, as its plan declares. */
export type EffectKind = 'none' | 'idempotent' | 'non_idempotent';

/** The queue's next move after a failure. */
export type RecoveryDecision = { action: 'retry' } | { action: 'reconcile' } | { action: 'review'; reason: string };

/**
 * The transaction sketch's recovery matrix: transient, retry while attempts last; permanent,
 * stop and report; business, a person re-plans; policy, blocked; unknown
 * outcome, reconcile against the world first unless repeating the step is
 * harmless. A decision to retry with no attempts left becomes review at the store.
 */
export function decideRecovery(kind: ErrorKind, effect: EffectKind): RecoveryDecision {
  switch (kind) {
    case 'transient':
      return { action: 'retry' };
    case 'unknown_outcome':
      return effect === 'non_idempotent' ? { action: 'reconcile' } : { action: 'retry' };
    case 'permanent':
      return { action: 'review', reason: 'permanent error: retrying cannot help' };
    case 'business':
      return { action: 'review', reason: 'business rule not met: a person must re-plan or give input' };
    case 'policy':
      return { action: 'review', reason: 'policy violation: blocked before it ran' };
    case 'unclassified':
      return { action: 'review', reason: 'unclassified error: review is safer than a blind retry' };
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown error kind ${String(unreachable)}`);
    }
  }
}
