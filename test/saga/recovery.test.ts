import { describe, expect, it } from 'vitest';
import { classifyError, ERROR_KINDS, type ErrorKind } from '../../src/kernel/job-errors.js';
import { decideRecovery, type EffectKind, type RecoveryDecision } from '../../src/saga/recovery.js';

const EFFECTS: readonly EffectKind[] = ['none', 'idempotent', 'non_idempotent'];

/** The transaction sketch's recovery matrix, written out: kind -> effect -> action. */
const MATRIX: Record<ErrorKind, Record<EffectKind, RecoveryDecision['action']>> = {
  transient: { none: 'retry', idempotent: 'retry', non_idempotent: 'retry' },
  unknown_outcome: { none: 'retry', idempotent: 'retry', non_idempotent: 'reconcile' },
  permanent: { none: 'review', idempotent: 'review', non_idempotent: 'review' },
  business: { none: 'review', idempotent: 'review', non_idempotent: 'review' },
  policy: { none: 'review', idempotent: 'review', non_idempotent: 'review' },
  unclassified: { none: 'review', idempotent: 'review', non_idempotent: 'review' },
};

const CASES = ERROR_KINDS.flatMap((kind) => EFFECTS.map((effect) => ({ kind, effect, action: MATRIX[kind][effect] })));

describe('decideRecovery', () => {
  it('is tested for every error kind there is', () => {
    expect(Object.keys(MATRIX).sort()).toEqual([...ERROR_KINDS].sort());
    expect(CASES).toHaveLength(ERROR_KINDS.length * EFFECTS.length);
  });

  it.each(CASES)('$kind on a $effect effect -> $action', ({ kind, effect, action }) => {
    const decision = decideRecovery(kind, effect);
    expect(decision.action).toBe(action);
    if (decision.action === 'review') expect(decision.reason).toMatch(/\w{4,}/);
    else expect(decision).toEqual({ action });
  });

  it('gives each review kind its own reason, naming the kind', () => {
    const reasons = (['permanent', 'business', 'policy', 'unclassified'] as const).map((kind) => {
      const decision = decideRecovery(kind, 'idempotent');
      if (decision.action !== 'review') throw new Error(`${kind} should go to review`);
      return [kind, decision.reason] as const;
    });
    for (const [kind, reason] of reasons) expect(reason).toContain(kind);
    expect(new Set(reasons.map(([, reason]) => reason)).size).toBe(reasons.length);
  });

  it.each([
    { error: new Error('request timeout'), effect: 'non_idempotent', action: 'reconcile' },
    { error: new Error('socket hang up'), effect: 'non_idempotent', action: 'reconcile' },
    { error: new Error('request timeout'), effect: 'idempotent', action: 'retry' },
    { error: new Error('HTTP 503'), effect: 'non_idempotent', action: 'retry' },
    { error: new Error('HTTP 401'), effect: 'idempotent', action: 'review' },
  ] as const)('routes a foreign "$error.message" on a $effect effect to $action', ({ error, effect, action }) => {
    // The queue sketch retried every timeout: on a non-idempotent effect that can apply it twice.
    expect(decideRecovery(classifyError(error), effect).action).toBe(action);
  });

  it('throws on a kind it does not know instead of guessing', () => {
    expect(() => decideRecovery('bogus' as ErrorKind, 'none')).toThrow(/unknown error kind bogus/);
  });
});
