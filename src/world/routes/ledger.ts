import { send } from '../respond.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

// GET /ledger: the evidence over HTTP, for a reader that has the world's URL but not its ledger file.

/** GET /ledger: every applied effect, in order. */
export function handleLedger({ res }: RouteRequest, { ledger }: WorldContext): void {
  send(res, 200, { effects: ledger.effects() });
}

/** The /ledger path. */
export const LEDGER_ROUTE: Route = { GET: handleLedger };
