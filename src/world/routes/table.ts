import { CALL_ROUTE } from './call.js';
import { CALLS_ROUTE } from './calls.js';
import { DELIVERY_ROUTE } from './delivery.js';
import { FAULTS_ROUTE } from './faults.js';
import { HEALTH_ROUTE } from './health.js';
import { LEDGER_ROUTE } from './ledger.js';
import { RECONCILE_ROUTE } from './reconcile.js';
import type { Route } from './route.js';
import { STATE_ROUTE } from './state.js';

// The one place that says which path is served by which module: adding a route touches this and its own file only.

/** Every path the world serves. */
export const WORLD_ROUTES: Readonly<Record<string, Route>> = {
  '/call': CALL_ROUTE,
  '/reconcile': RECONCILE_ROUTE,
  '/faults': FAULTS_ROUTE,
  '/ledger': LEDGER_ROUTE,
  '/calls': CALLS_ROUTE,
  '/delivery': DELIVERY_ROUTE,
  '/state': STATE_ROUTE,
  '/health': HEALTH_ROUTE,
};
