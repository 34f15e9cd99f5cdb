import type { WorldFaultAction } from './action.js';
import { worldDelay } from './delay.js';
import { worldDrop } from './drop.js';
import { worldErrorAfterApply } from './error-after-apply.js';
import { worldFail } from './fail.js';

export { WORLD_FAIL_STATUSES, type WorldFailStatus } from './statuses.js';

/** Every action a world fault can take, in the order the docs and the schemas list them. Adding one: a file, and an entry here. */
export const WORLD_FAULT_ACTIONS = [worldDrop, worldDelay, worldFail, worldErrorAfterApply] as const;

/** The name of a world fault action. */
export type WorldFaultActionName = (typeof WORLD_FAULT_ACTIONS)[number]['name'];

type ActionOf<D> = D extends WorldFaultAction<string, infer A> ? A : never;
/** A world fault's action as the world's API takes it. */
export type WorldFaultActionSpec = ActionOf<(typeof WORLD_FAULT_ACTIONS)[number]>;

/** The action names, for schemas (a non-empty tuple). */
export const WORLD_FAULT_ACTION_NAMES = WORLD_FAULT_ACTIONS.map((action) => action.name) as [WorldFaultActionName, ...WorldFaultActionName[]];

/** The world fault action called `name`, or undefined. */
export function worldFaultAction(name: unknown): WorldFaultAction | undefined {
  return (WORLD_FAULT_ACTIONS as readonly WorldFaultAction[]).find((action) => action.name === name);
}
