import { secretsInPayload } from '../../src/kernel/redact.js';
import { queueImpl } from '../../src/queues/registry.js';
import type { Claimed } from '../../src/reference/sqlite/sqlite-queue.js';
import { type CompensationOutcome, compensatePlan } from '../../src/saga/compensate.js';
import { parsePlan } from '../../src/saga/plan.js';
import { REFERENCE_SAGA_RULES, type SagaRules } from '../../src/saga/rules.js';
import { type PlanOutcome, runPlan } from '../../src/saga/run-plan.js';
import type { SagaFixture } from '../saga/fixture.js';

/*
 * The saga runtime under a queue implementation's rules, on the saga tests'
 * real parts (test/saga/fixture.ts: a real store, a real world server): what
 * the worker and coordinator processes do with `impl.sagaRules`.
 */

/** The saga rules the implementation called `name` runs with. */
export function rulesOf(name: string): SagaRules {
  return queueImpl(name).sagaRules ?? REFERENCE_SAGA_RULES;
}

/** A worker's run of its claimed plan under `rules`. */
export async function runWith(fx: SagaFixture, claimed: Claimed, rules: SagaRules): Promise<PlanOutcome> {
  const payload = JSON.parse(claimed.job.payload_json) as Record<string, unknown>;
  return runPlan({
    claim: fx.claimOf(claimed),
    txLog: await fx.logOf(claimed),
    plan: parsePlan(payload.plan),
    world: fx.client,
    secrets: secretsInPayload(payload),
    rules,
  });
}

/** The coordinator's compensation of the waiting saga under `rules`, settled in the queue as the coordinator does. */
export async function compensateWith(fx: SagaFixture, rules: SagaRules): Promise<CompensationOutcome> {
  const claimed = fx.queue.claimCompensation('coord-1');
  if (!claimed) throw new Error('no saga waits for compensation');
  const payload = JSON.parse(claimed.job.payload_json) as Record<string, unknown>;
  const outcome = await compensatePlan({
    claim: fx.claimOf(claimed),
    txLog: await fx.logOf(claimed),
    plan: parsePlan(payload.plan),
    world: fx.client,
    secrets: secretsInPayload(payload),
    rules,
  });
  if (outcome.kind === 'compensated' || outcome.kind === 'compensation_failed')
    fx.queue.finishCompensation(claimed.lease, outcome.kind, outcome.reason);
  return outcome;
}
