import { argOf, collectFields } from '../kernel/action-fields.js';
import type { ActionField } from './action.js';
import { POINT_FAULT_ACTIONS } from './actions/index.js';

export { argOf };

/** Every field any point fault action takes, with its kind and the actions that take it: what a scenario's point fault may carry. */
export function actionFields(): Map<string, { kind: ActionField['kind']; describe: string; actions: string[] }> {
  return collectFields(POINT_FAULT_ACTIONS);
}
