import { send } from '../respond.js';
import { worldState } from '../state.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

// GET /state: the simulated systems after a drill, so a saga check can see that a compensation undid what it should.

/** GET /state: files (as digests), branches and articles. */
export function handleState({ res }: RouteRequest, { ledger }: WorldContext): void {
  send(res, 200, worldState(ledger.db));
}

/** The /state path. */
export const STATE_ROUTE: Route = { GET: handleState };
