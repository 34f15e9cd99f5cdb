import { REFERENCE_SAGA_RULES, type SagaRules } from '../../saga/rules.js';

/**
 * A compensation that failed for good is recorded as "compensated": the saga
 * ran its undo loop to the end, so it calls itself done. The step whose undo
 * failed keeps its effect in the world, no incident is opened, and the person
 * reading the review queue is told all is well.
 */
export const FAILED_COMPENSATION_OK_RULES: SagaRules = {
  ...REFERENCE_SAGA_RULES,
  failedCompensationIs: 'compensated',
};
