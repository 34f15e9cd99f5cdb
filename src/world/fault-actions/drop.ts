import * as z from 'zod';
import type { WorldFaultAction } from './action.js';

/** drop: apply the call, commit it to the ledger, then hang up without answering: the response is lost. */
export const worldDrop: WorldFaultAction<'drop', { type: 'drop' }> = {
  name: 'drop',
  summary: 'apply the call, then close the connection without answering (the response is lost)',
  schema: z.strictObject({ type: z.literal('drop') }),
  fields: {},
  fromScenario: () => ({ type: 'drop' }),
  describe: () => 'drop',
  async carryOut(received, call) {
    const committed = received.commit(call, null, true);
    if (!committed) return;
    received.log('dropped', null, committed.applied.externalRef);
    received.hangUp();
  },
  explore: (fast) => fast.record({ times: fast.integer({ min: 1, max: 2 }) }),
};
