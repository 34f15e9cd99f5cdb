import type { WorldCall } from './effects.js';
import { WorldError } from './errors.js';
import type { WorldFaultActionSpec } from './fault-actions/index.js';
import { worldFaultAction } from './fault-actions/index.js';
import type { ReceivedCall } from './received-call.js';

/*
 * What the world does to a call an armed fault matched, as the fault's action
 * says (./fault-actions/). The order in each is the point of the fault: the
 * ledger row is committed before the answer is lost, delayed or replaced by an
 * error, so the evidence shows an effect the caller never heard of.
 */

/** Carries out a matched fault's action on a valid call: applies it or not, then answers, late, wrongly, or never. */
export async function carryOutFault(received: ReceivedCall, call: WorldCall, action: WorldFaultActionSpec): Promise<void> {
  const known = worldFaultAction(action.type);
  // A fault stored by a newer world: refuse the call rather than apply it without the fault it was meant to get.
  if (!known) {
    received.refuse(
      new WorldError('WORLD_INTERNAL', `fault ${received.faultId} has an action this world cannot carry out: ${JSON.stringify(action.type)}`, 500),
    );
    return;
  }
  await known.carryOut(received, call, action as never);
}
