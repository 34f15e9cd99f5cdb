import * as z from 'zod';
import { WorldError } from '../errors.js';
import type { WorldFaultAction } from './action.js';

/** delay: apply the call (or not), then answer only after ms: past the caller's timeout, an outcome the caller cannot know. */
export const worldDelay: WorldFaultAction<'delay', { type: 'delay'; ms: number; applied: boolean }> = {
  name: 'delay',
  summary: "hold the answer ms, past the caller's timeout; the effect applied or not",
  schema: z.strictObject({ type: z.literal('delay'), ms: z.int().min(0).max(600_000), applied: z.boolean() }),
  fields: {
    ms: { kind: 'ms', required: true, describe: 'how long the answer is held' },
    applied: { kind: 'boolean', required: true, describe: 'whether the effect is applied before the wait' },
  },
  fromScenario: (fields) => ({ type: 'delay', ms: fields.ms as number, applied: fields.applied as boolean }),
  describe: (action) => `delay ${action.ms} ms (${action.applied ? 'applied' : 'not applied'})`,
  async carryOut(received, call, action) {
    if (!action.applied) {
      received.recordFailed(503);
      if (await received.hold(action.ms))
        received.answerError(new WorldError('WORLD_DELAYED_NOT_APPLIED', `delayed ${action.ms} ms and not applied (fault ${received.faultId})`, 503));
      received.log('failed', 503, null);
      return;
    }
    // The ledger row is committed before the long wait: the effect is there whatever the caller concludes.
    const committed = received.commit(call, 200);
    if (!committed) return;
    if (await received.hold(action.ms)) received.answer(committed.applied);
    received.log(committed.outcome, 200, committed.applied.externalRef);
  },
  explore: (fast) => fast.record({ ms: fast.constant(1_000), applied: fast.boolean(), times: fast.integer({ min: 1, max: 2 }) }),
};
