import { REFERENCE_SAGA_RULES, type SagaRules } from '../../saga/rules.js';

/**
 * Compensation in plan order: the completed steps are undone first to last, as
 * a plain loop over the plan would, instead of last to first. A later step
 * usually depends on an earlier one (a file written into a branch, an article
 * published from that file), so undoing the earlier one first pulls the ground
 * from under the later one's undo.
 */
export const COMPENSATION_FORWARD_RULES: SagaRules = {
  ...REFERENCE_SAGA_RULES,
  compensationOrder: (steps) => [...steps],
};
