import { utc } from '../../kernel/clock.js';
import { WorldError } from '../errors.js';
import { parseFaultSpec } from '../faults.js';
import { send, sendError } from '../respond.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

/*
 * /faults: the harness arms, lists and clears the world's faults. Clearing
 * keeps them in the file with their fired counts: a fault that never fired is
 * evidence that a drill did not test what it claims to.
 */

/** POST /faults: arms a fault from its spec; 201 with its id. */
export async function armFault({ res, body }: RouteRequest, { faults, clock }: WorldContext): Promise<void> {
  let spec: unknown;
  try {
    spec = JSON.parse(await body());
  } catch (error) {
    return sendError(res, error instanceof WorldError ? error : new WorldError('WORLD_BAD_JSON', 'the body is not JSON', 400));
  }
  const fault = faults.arm(parseFaultSpec(spec), utc(clock.now()));
  send(res, 201, { id: fault.id, fault });
}

/** GET /faults: the armed faults; with ?all=1, every fault ever armed on this ledger. */
export function listFaults({ res, url }: RouteRequest, { faults }: WorldContext): void {
  send(res, 200, { faults: faults.list({ includeCleared: url.searchParams.get('all') === '1' }) });
}

/** DELETE /faults: disarms every armed fault and answers them with their final fired counts. */
export function clearFaults({ res }: RouteRequest, { faults, clock }: WorldContext): void {
  send(res, 200, { cleared: faults.clear(utc(clock.now())) });
}

/** The /faults path; POST first, as the 405's allow header always listed it. */
export const FAULTS_ROUTE: Route = { POST: armFault, GET: listFaults, DELETE: clearFaults };
