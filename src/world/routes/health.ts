import { send } from '../respond.js';
import type { Route, RouteRequest } from './route.js';

// GET /health: touches nothing, so it answers even while the ledger is locked; the pid tells which world answered.

/** GET /health: ok and the world's pid. */
export function handleHealth({ res }: RouteRequest): void {
  send(res, 200, { ok: true, pid: process.pid });
}

/** The /health path. */
export const HEALTH_ROUTE: Route = { GET: handleHealth };
