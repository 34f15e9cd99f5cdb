import type { PlanStep } from './plan.js';

/**
 * The decisions of the saga runtime that a queue implementation may make
 * differently. The reference rules are the transaction sketch's; a broken variant (the
 * harness's self-test) swaps one, so a drill can show that it is caught.
 */
export interface SagaRules {
  /** Whether a step left in doubt must be reconciled with the world before it may run again. */
  mustReconcile(step: PlanStep): boolean;
  /** The order completed steps are undone in. */
  compensationOrder(steps: readonly PlanStep[]): PlanStep[];
  /** How a saga whose compensation failed for good is recorded. */
  failedCompensationIs: 'compensation_failed' | 'compensated';
}

/** The transaction sketch: reconcile whatever repeating could apply twice; undo in reverse; a failed undo is an incident. */
export const REFERENCE_SAGA_RULES: SagaRules = {
  mustReconcile: (step) => step.has_side_effect && !step.idempotent,
  compensationOrder: (steps) => [...steps].reverse(),
  failedCompensationIs: 'compensation_failed',
};
