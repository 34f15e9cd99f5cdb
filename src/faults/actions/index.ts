import type { PointFaultAction } from '../action.js';
import { block } from './block.js';
import { crash } from './crash.js';
import { delay } from './delay.js';
import { dropReply } from './drop-reply.js';
import { error } from './error.js';
import { exit } from './exit.js';
import { hang } from './hang.js';
import { latency } from './latency.js';
import { partition } from './partition.js';
import { pause } from './pause.js';
import { reset } from './reset.js';
import { restartServer } from './restart-server.js';

/** Every action a fault rule can take at a point, in the order docs, schema and the exhaustive matrix list them. Adding one: a file, and an entry here. */
export const POINT_FAULT_ACTIONS = [crash, exit, pause, block, hang, error, delay, restartServer, partition, latency, reset, dropReply] as const;

/** The name of a fault action. */
export type FaultActionName = (typeof POINT_FAULT_ACTIONS)[number]['name'];

type ActionOf<D> = D extends PointFaultAction<string, infer A> ? A : never;
/** An action with its argument resolved: what a rule carries and the controller carries out. */
export type PointFaultActionSpec = ActionOf<(typeof POINT_FAULT_ACTIONS)[number]>;

/** The action names, for schemas (a non-empty tuple). */
export const FAULT_ACTION_NAMES = POINT_FAULT_ACTIONS.map((action) => action.name) as [FaultActionName, ...FaultActionName[]];

/** The action called `name`, or undefined. */
export function pointFaultAction(name: unknown): PointFaultAction | undefined {
  return (POINT_FAULT_ACTIONS as readonly PointFaultAction[]).find((action) => action.name === name);
}
