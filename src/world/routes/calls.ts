import { send } from '../respond.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

// GET /calls: every call received, refused and dropped ones included, for debugging a drill from outside.

/** GET /calls: every call received, in order. */
export function handleCalls({ res }: RouteRequest, { ledger }: WorldContext): void {
  send(res, 200, { calls: ledger.calls() });
}

/** The /calls path. */
export const CALLS_ROUTE: Route = { GET: handleCalls };
