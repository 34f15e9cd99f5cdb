import type { Settlement, WriteResult } from '../../port/delivery.js';
import type { ChildChannel } from './child-channel.js';
import { leaseFields, ProtocolError } from './protocol.js';

/** A settlement as the `settle` request carries it. */
export function settlementWire(settlement: Settlement): Record<string, unknown> {
  switch (settlement.kind) {
    case 'done':
      return { kind: 'done', digest: settlement.digest };
    case 'retry':
      return { kind: 'retry', error: settlement.error };
    case 'review':
      return { kind: 'review', reason: settlement.reason, error: settlement.error ?? null, awaiting_approval: settlement.awaitingApproval ?? false };
    case 'compensate':
      return { kind: 'compensate', reason: settlement.reason, error: settlement.error };
    case 'lease_lost':
      return { kind: 'lease_lost' };
    default: {
      const unreachable: never = settlement;
      throw new Error(`unknown settlement ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * A holder's fenced write through the child (`op`): applied (`ok`), or refused
 * because its lease was lost (`fail` with code `lease_lost`, which the child
 * has recorded where it keeps refusals). Any other failure is thrown: the
 * caller cannot tell what happened, and the lease's expiry decides.
 */
export async function fencedWrite(
  channel: ChildChannel,
  op: string,
  claim: Parameters<typeof leaseFields>[0],
  fields: Record<string, unknown>,
): Promise<WriteResult> {
  try {
    const body = await channel.request(op, { ...leaseFields(claim), ...fields });
    return { ok: true, status: (typeof body.status === 'string' ? body.status : 'running') as Extract<WriteResult, { ok: true }>['status'] };
  } catch (error) {
    if (error instanceof ProtocolError && error.code === 'lease_lost') return { ok: false, refused: error.message };
    throw error;
  }
}
