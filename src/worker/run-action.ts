import { failpoint } from '../faults/failpoint.js';
import type { Delivery, Settlement } from '../port/delivery.js';
import type { EffectKind } from '../saga/recovery.js';
import { ACTIONS, type ActionContext } from './actions.js';
import { settleFailure } from './settle-failure.js';

/** Runs one of the demo actions (not a plan), verifies it against its evidence, and says how to settle it. */
export async function runAction(
  delivery: Delivery,
  payload: Record<string, unknown>,
  deps: { effectLog: string; secrets: readonly string[]; now: () => string },
): Promise<Settlement> {
  const action = ACTIONS[delivery.action];
  const ctx: ActionContext = { job: delivery, payload, workerId: delivery.holder, effectLog: deps.effectLog, now: deps.now, signal: delivery.signal };
  const where = { worker: delivery.holder, jobId: delivery.jobId, jobKey: delivery.key, attempt: delivery.attempt };
  try {
    if (!action) throw new Error(`unknown action ${JSON.stringify(delivery.action)}`);
    const output = await action.run(ctx);
    const digest = action.verify(ctx, output);
    await failpoint('after_verify', where);
    await failpoint('before_complete', where);
    return { kind: 'done', digest };
  } catch (error) {
    const effect = (payload.effect as EffectKind | undefined) ?? action?.effect ?? 'non_idempotent';
    return settleFailure(error, effect, deps.secrets);
  }
}
