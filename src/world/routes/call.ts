import { utc } from '../../kernel/clock.js';
import { type ParsedCall, parseCall } from '../call-body.js';
import { carryOutFault } from '../carry-out-fault.js';
import { asWorldError } from '../errors.js';
import { type CallReceipt, ReceivedCall } from '../received-call.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

/*
 * POST /call: a worker's call to an outside system. Each call is recorded as
 * received, matched against the armed faults, carried out in one SQLite
 * transaction with its ledger row, and only then answered (or not: that is
 * the drop fault). Nothing of a call's arguments is logged.
 */

/** The call's body, validated; a body that could not be read (too large) is a refused call like any other. */
async function readCall(request: RouteRequest): Promise<ParsedCall> {
  try {
    return parseCall(await request.body());
  } catch (error) {
    return { ok: false, error: asWorldError(error), tool: null, key: null, meta: null };
  }
}

/** Records the call and takes the fault that hits it, in one transaction: the seq is the "Nth call", and a fault's last firing goes to one call only. */
function receive(world: WorldContext, parsed: ParsedCall, started: number, at: string): CallReceipt {
  const tool = parsed.ok ? parsed.call.tool : parsed.tool;
  const key = parsed.ok ? parsed.call.key : parsed.key;
  const meta = parsed.ok ? parsed.call.meta : parsed.meta;
  const { seq, fault } = world.ledger.transaction(() => {
    const seq = world.ledger.receiveCall({ key, tool, meta, at });
    const fault = parsed.ok ? world.faults.take({ seq, tool: parsed.call.tool, key: parsed.call.key }) : null;
    return { seq, fault };
  });
  return { seq, fault, tool, key, meta, started, at };
}

/** POST /call: records the call, then refuses it, carries out the fault it matched, or applies it and answers 200. */
export async function handleCall(request: RouteRequest, world: WorldContext): Promise<void> {
  const started = world.clock.now();
  const parsed = await readCall(request);
  const received = new ReceivedCall(world, request, receive(world, parsed, started, utc(started)));
  if (!parsed.ok) return received.refuse(parsed.error);
  const action = received.receipt.fault?.spec.action;
  if (action) return carryOutFault(received, parsed.call, action);
  const committed = received.commit(parsed.call, 200);
  if (!committed) return;
  received.log(committed.outcome, 200, committed.applied.externalRef);
  received.answer(committed.applied);
}

/** The /call path. */
export const CALL_ROUTE: Route = { POST: handleCall };
