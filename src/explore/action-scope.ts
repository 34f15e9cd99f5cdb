import { type FaultActionName, POINT_FAULT_ACTIONS } from '../faults/actions/index.js';
import { FAILPOINTS, type FailpointName, isHoldersPoint } from '../faults/points.js';

/*
 * Which point fault actions explore draws on the queue it explores, and at
 * which points. An action that acts on a process's links to its queue's
 * servers (network: partition, latency, reset, drop_reply) needs a queue
 * reached over the network: an embedded one (SQLite) has no link to cut, and
 * its drill would refuse the schedule. drop_reply is drawn as the loss of the
 * reply to a worker's complete, so it needs a queue that names the request
 * carrying that write, and is armed only where a worker, which writes it, is.
 * Without a network, explore draws exactly what it drew before these actions.
 */

/** What of a queue decides it (QueueAdapter's needs and wireRequests), by shape: explore imports nothing of src/port. */
export interface ExploredQueue {
  needs?: readonly string[];
  wireRequests?: { complete?: unknown };
}

type PointAction = (typeof POINT_FAULT_ACTIONS)[number];

/** An action explore draws: one that says how its fields are drawn. */
export type ExploredAction = PointAction & { explore: NonNullable<PointAction['explore']> };

export interface ExploreScope {
  /** The queue reaches a server over the network: a drill may cut its processes' links. */
  network: boolean;
  /** The actions explore draws, in the order of POINT_FAULT_ACTIONS (the draws and the cover follow it). */
  actions: readonly ExploredAction[];
  /** The points explore arms the action at. */
  pointsOf(action: FaultActionName): readonly FailpointName[];
}

/** The points a worker reaches: where it may later write its complete. */
const WORKERS_POINTS: readonly FailpointName[] = FAILPOINTS.filter(isHoldersPoint);

/** What explore draws on this queue. */
export function exploreScope(queue: ExploredQueue): ExploreScope {
  const network = (queue.needs ?? []).length > 0;
  const namesComplete = queue.wireRequests?.complete !== undefined;
  const drawn = (action: PointAction): action is ExploredAction =>
    action.explore !== undefined && (action.network !== true || network) && (action.name !== 'drop_reply' || namesComplete);
  return {
    network,
    actions: POINT_FAULT_ACTIONS.filter(drawn),
    pointsOf: (action) => (action === 'drop_reply' ? WORKERS_POINTS : FAILPOINTS),
  };
}

/** A queue with no network (the SQLite reference): no network action is drawn. */
export const NO_NETWORK: ExploreScope = exploreScope({});
