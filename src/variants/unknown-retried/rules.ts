import { REFERENCE_SAGA_RULES, type SagaRules } from '../../saga/rules.js';

/**
 * The queue sketch's `classify_error` as the saga runtime's rule: a step left in doubt
 * (a timeout, a lost response, a worker that died mid-call) is never
 * reconciled, it is simply run again, "retries are safe, every call has an
 * idempotency key". For a non-idempotent effect (an email, a charge) the world
 * may already have applied it, and the blind retry applies it twice; what
 * cannot be settled never reaches a person.
 */
export const UNKNOWN_RETRIED_RULES: SagaRules = {
  ...REFERENCE_SAGA_RULES,
  mustReconcile: () => false,
};
