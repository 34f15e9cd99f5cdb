import * as z from 'zod';
import { WorldError } from '../errors.js';
import type { WorldFaultAction } from './action.js';
import { WORLD_FAIL_STATUSES, type WorldFailStatus } from './statuses.js';

/** fail: answer an error before applying anything: 503/429 transient (the caller may try again), 401/403 permanent. */
export const worldFail: WorldFaultAction<'fail', { type: 'fail'; status: WorldFailStatus }> = {
  name: 'fail',
  summary: `answer ${WORLD_FAIL_STATUSES.join('/')} before applying anything`,
  schema: z.strictObject({ type: z.literal('fail'), status: z.literal(WORLD_FAIL_STATUSES) }),
  fields: { status: { kind: 'fail-status', required: true, describe: '503 or 429 (transient), 401 or 403 (permanent)' } },
  fromScenario: (fields) => ({ type: 'fail', status: fields.status as WorldFailStatus }),
  describe: (action) => `fail ${action.status}`,
  async carryOut(received, _call, action) {
    const error = new WorldError('WORLD_INJECTED_FAILURE', `injected ${action.status} before applying (fault ${received.faultId})`, action.status);
    // A 429 says when to come back, as a rate-limiting API would.
    received.refuse(error, action.status === 429 ? { 'retry-after': '1' } : {});
  },
  explore: (fast) => fast.record({ status: fast.constantFrom(...WORLD_FAIL_STATUSES), times: fast.integer({ min: 1, max: 3 }) }),
};
