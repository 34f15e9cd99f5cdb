import { failpoint } from '../faults/failpoint.js';
import type { Delivery, Settlement } from '../port/delivery.js';
import { PlanError, parsePlan } from '../saga/plan.js';
import type { SagaRules } from '../saga/rules.js';
import { runPlan } from '../saga/run-plan.js';
import type { WorldPort } from '../saga/world-port.js';

/** Runs a plan job (the transaction sketch's saga runtime) and says how to settle it. */
export async function runPlanJob(
  delivery: Delivery,
  payload: Record<string, unknown>,
  deps: { world: WorldPort | null; secrets: readonly string[]; rules?: SagaRules | undefined },
): Promise<Settlement> {
  let outcome: Settlement;
  try {
    const plan = parsePlan(payload.plan);
    outcome = deps.world
      ? await runPlan({
          claim: delivery,
          txLog: delivery.saga,
          plan,
          world: deps.world,
          secrets: deps.secrets,
          ...(deps.rules ? { rules: deps.rules } : {}),
        })
      : { kind: 'review', reason: 'this worker was started without --world; a plan job needs the world' };
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    outcome = { kind: 'review', reason: `the stored plan is invalid: ${error.message}` };
  }
  // The last moment before the queue's write: a worker paused here wakes as a zombie with a complete to make.
  if (outcome.kind === 'done')
    await failpoint('before_complete', { worker: delivery.holder, jobId: delivery.jobId, jobKey: delivery.key, attempt: delivery.attempt });
  return outcome;
}
