import * as z from 'zod';
import { WorldError } from '../errors.js';
import type { WorldFaultAction } from './action.js';

/** error_after_apply: apply the call, then answer 500: the caller cannot tell it from a failure. */
export const worldErrorAfterApply: WorldFaultAction<'error_after_apply', { type: 'error_after_apply' }> = {
  name: 'error_after_apply',
  summary: 'apply the call, then answer 500 (indistinguishable from a failure)',
  schema: z.strictObject({ type: z.literal('error_after_apply') }),
  fields: {},
  fromScenario: () => ({ type: 'error_after_apply' }),
  describe: () => 'error_after_apply',
  async carryOut(received, call) {
    const committed = received.commit(call, 500);
    if (!committed) return;
    received.log(committed.outcome, 500, committed.applied.externalRef);
    received.answerError(new WorldError('WORLD_INJECTED_ERROR_AFTER_APPLY', `applied, then failed (fault ${received.faultId})`, 500));
  },
  explore: (fast) => fast.record({ times: fast.integer({ min: 1, max: 2 }) }),
};
