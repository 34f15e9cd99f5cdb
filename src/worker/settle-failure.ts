import { classifyError } from '../kernel/job-errors.js';
import { storableError } from '../kernel/redact.js';
import type { Settlement } from '../port/delivery.js';
import { decideRecovery, type EffectKind } from '../saga/recovery.js';

/**
 * A failed attempt routed by the transaction sketch's recovery matrix: retry (review once no
 * attempt is left, the queue decides), review with the reason, and for an
 * unknown outcome this worker cannot reconcile, review: a person must check
 * before it is repeated. The error is redacted before it is stored.
 */
export function settleFailure(error: unknown, effect: EffectKind, secrets: readonly string[]): Settlement {
  const decision = decideRecovery(classifyError(error), effect);
  const text = storableError(error, secrets);
  switch (decision.action) {
    case 'retry':
      return { kind: 'retry', error: text };
    case 'review':
      return { kind: 'review', reason: decision.reason, error: text };
    case 'reconcile':
      return { kind: 'review', reason: 'unknown outcome of a non-idempotent effect; reconciliation could not settle it', error: text };
    default: {
      const unreachable: never = decision;
      throw new Error(`unknown decision ${JSON.stringify(unreachable)}`);
    }
  }
}
