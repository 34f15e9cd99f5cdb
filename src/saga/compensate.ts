import { failpoint } from '../faults/failpoint.js';
import { classifyError } from '../kernel/job-errors.js';
import { storableError } from '../kernel/redact.js';
import { compensationKey, stepKey } from './plan.js';
import { REFERENCE_SAGA_RULES } from './rules.js';
import type { PlanRun } from './run-plan.js';
import { stepStates } from './tx-log.js';

/** How many times one compensation may fail for a passing reason before it counts as failed. */
export const COMPENSATION_TRIES = 3;

export type CompensationOutcome =
  | { kind: 'compensated'; reason: string }
  | { kind: 'compensation_failed'; reason: string }
  | { kind: 'try_later'; error: string }
  | { kind: 'lease_lost' };

/** A held job and what compensating it needs: the same as running it. */
export type CompensationRun = PlanRun;

/*
 * The transaction sketch's saga compensation: after a step failed for good, every completed
 * step is undone in reverse order. Compensations are idempotent by key and
 * logged, so a coordinator that dies half-way resumes where it stopped. A step
 * that cannot be undone is logged as skipped and named for a person; a
 * compensation that fails for good is an incident and ends in
 * COMPENSATION_FAILED, never in "compensated".
 */
export async function compensatePlan(run: CompensationRun): Promise<CompensationOutcome> {
  const states = stepStates(await run.txLog.rows());
  const failed = run.plan.steps.find((step) => states.get(step.step_id)?.effect?.status !== 'success');
  const undone: string[] = [];
  const irreversible: string[] = [];
  const checkpoint = (stepId: string, key: string, status: 'started' | 'success' | 'failed' | 'skipped', detail?: string) =>
    run.txLog.append({ stepId, action: 'compensate', key, status, compensationStatus: status, detail: detail ?? null });

  const rules = run.rules ?? REFERENCE_SAGA_RULES;
  for (const step of rules.compensationOrder(run.plan.steps)) {
    const state = states.get(step.step_id);
    // Every step that may have happened, not only those logged as success: an
    // unknown outcome followed by a failed repeat may still have applied.
    if (!step.has_side_effect || !state?.mayHaveHappened) continue;
    const done = state.compensation?.status;
    if (done === 'success') {
      undone.push(step.step_id);
      continue;
    }
    if (done === 'skipped') {
      irreversible.push(`${step.step_id} (${step.tool})`);
      continue;
    }
    const key = compensationKey(run.claim.key, step.step_id);
    if (step.compensation === null) {
      if (!(await checkpoint(step.step_id, key, 'skipped', `${step.tool} is not reversible: a person must handle its effect`)))
        return { kind: 'lease_lost' };
      irreversible.push(`${step.step_id} (${step.tool})`);
      continue;
    }
    if (!(await checkpoint(step.step_id, key, 'started'))) return { kind: 'lease_lost' };
    await failpoint('during_compensation', {
      worker: run.claim.holder,
      jobId: run.claim.jobId,
      jobKey: run.claim.key,
      attempt: run.claim.attempt,
      step: step.step_id,
      tool: step.compensation,
      key,
    });
    try {
      await run.world.call(
        step.compensation,
        key,
        { compensates: stepKey(run.claim.key, step.step_id) },
        {
          job: run.claim.jobId,
          step: `${step.step_id}:compensate`,
          attempt: run.claim.attempt,
          worker: run.claim.holder,
          pid: process.pid,
          fence: run.claim.epoch,
        },
      );
    } catch (error) {
      const text = storableError(error, run.secrets);
      if (!(await checkpoint(step.step_id, key, 'failed', text))) return { kind: 'lease_lost' };
      const kind = classifyError(error);
      const failures = (await run.txLog.rows()).filter(
        (row) => row.step_id === step.step_id && row.action === 'compensate' && row.status === 'failed',
      ).length;
      // Compensations are idempotent by key, so a passing failure may be tried again.
      if ((kind === 'transient' || kind === 'unknown_outcome') && failures < COMPENSATION_TRIES) return { kind: 'try_later', error: text };
      if (rules.failedCompensationIs === 'compensated') {
        return { kind: 'compensated', reason: `compensated: undoing step ${step.step_id} failed, recorded as compensated` };
      }
      await run.txLog.incident(step.step_id, text);
      return {
        kind: 'compensation_failed',
        reason: `COMPENSATION_FAILED: undoing step ${step.step_id} with ${step.compensation} failed (${kind}): manual recovery required; ${text}`,
      };
    }
    if (!(await checkpoint(step.step_id, key, 'success'))) return { kind: 'lease_lost' };
    undone.push(step.step_id);
  }
  const cause = failed ? `step ${failed.step_id} (${failed.tool}) failed for good` : 'the plan failed';
  const lost = irreversible.length > 0 ? `; not reversible, for a person: ${irreversible.join(', ')}` : '';
  return { kind: 'compensated', reason: `compensated: ${cause}; undone in reverse order: ${undone.join(', ') || '(nothing)'}${lost}` };
}
