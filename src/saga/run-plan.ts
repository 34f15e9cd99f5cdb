import { createHash } from 'node:crypto';
import { failpoint } from '../faults/failpoint.js';
import type { FailpointName } from '../faults/points.js';
import { classifyError } from '../kernel/job-errors.js';
import type { JobRow, Lease } from '../queue/job.js';
import { storableError } from '../kernel/redact.js';
import { readHistory } from '../adapters/sqlite/sql/reads.js';
import type { Db } from '../adapters/sqlite/store.js';
import { toolMetadata } from '../world/catalogue.js';
import { stepKey, type Plan, type PlanStep } from './plan.js';
import { policyViolations } from './policy.js';
import { REFERENCE_SAGA_RULES, type SagaRules } from './rules.js';
import { appendTx, inDoubt, stepStates, type TxEntry } from './tx-log.js';
import type { WorldPort } from './world-port.js';

/** How a worker's run of a plan ended; the worker turns it into one queue write. */
export type PlanOutcome =
  | { kind: 'done'; digest: string }
  | { kind: 'retry'; error: string }
  | { kind: 'review'; reason: string; error?: string }
  | { kind: 'compensate'; reason: string; error: string }
  | { kind: 'lease_lost'; step: string };

export interface PlanRun {
  db: Db;
  lease: Lease;
  job: JobRow;
  plan: Plan;
  world: WorldPort;
  now: () => number;
  /** The payload's secret values, redacted from anything stored. */
  secrets: readonly string[];
  /** @default REFERENCE_SAGA_RULES */
  rules?: SagaRules;
}

type StepResult = 'next' | PlanOutcome;

/*
 * Runs a plan's steps in order, seed 003's transactional runtime:
 *   - a step logged as success is never run again;
 *   - a step whose outcome is in doubt (the last holder died mid-call, or the
 *     call timed out) is reconciled against the world before anything else,
 *     unless repeating it is harmless (idempotent by key, or no side effect);
 *   - a step that needs approval is prepared, then waits in review for a person;
 *   - every call is checkpointed before and after, fenced by the lease;
 *   - done needs evidence: every effect is looked up in the world again.
 */
export async function runPlan(run: PlanRun): Promise<PlanOutcome> {
  const violations = policyViolations(run.plan);
  if (violations.length > 0) return { kind: 'review', reason: `policy violation, blocked before any step ran: ${violations.join('; ')}` };
  for (const step of run.plan.steps) {
    const result = await runStep(run, step);
    if (result !== 'next') return result;
  }
  return verify(run);
}

function log(run: PlanRun, entry: Omit<TxEntry, 'attempt'>): boolean {
  return appendTx(run.db, { kind: 'lease', lease: run.lease }, { ...entry, attempt: run.job.attempts }, run.now());
}

function hit(run: PlanRun, point: FailpointName, step?: PlanStep): Promise<void> {
  return failpoint(point, {
    worker: run.lease.workerId,
    jobId: run.job.id,
    attempt: run.job.attempts,
    ...(step ? { step: step.step_id, tool: step.tool, key: stepKey(run.job.idempotency_key, step.step_id) } : {}),
  });
}

/** Whether an unknown outcome came from waiting too long (rather than a lost answer or a 500). */
function isTimeout(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code === 'WORLD_TIMEOUT' || /timeout|timed out/i.test(error instanceof Error ? error.message : String(error));
}

/** Whether a person sent the job back to run after `since` (a human requeue from review). */
function requeuedByAPersonSince(run: PlanRun, since: string): boolean {
  return readHistory(run.db, run.job.id).some((e) => e.kind === 'transition' && e.actor === 'human' && e.to_status === 'pending' && e.at >= since);
}

/** Repeating the step cannot apply its effect twice (by the implementation's rules). */
function harmlessToRepeat(run: PlanRun, step: PlanStep): boolean {
  return !(run.rules ?? REFERENCE_SAGA_RULES).mustReconcile(step);
}

async function runStep(run: PlanRun, step: PlanStep): Promise<StepResult> {
  const key = stepKey(run.job.idempotency_key, step.step_id);
  const state = stepStates(run.db, run.job.id).get(step.step_id);
  if (state?.effect?.status === 'success') return 'next';
  if (step.requires_approval && !state?.approvedBy) {
    if (!state?.prepared && !log(run, { stepId: step.step_id, action: 'prepare', key, status: 'success', detail: 'prepared; waiting for approval' })) {
      return { kind: 'lease_lost', step: step.step_id };
    }
    return { kind: 'review', reason: `approval required before step ${step.step_id} (${step.tool}): queue-drill approve ${run.job.id} --by NAME` };
  }
  // The last holder failed this call for good and died before it said so: do what it would have done
  // (unless a person has sent the job back since: then it is meant to be tried again).
  const failed = state?.effect?.status === 'failed' ? state.effect : undefined;
  if (failed?.error_kind && failed.error_kind !== 'transient' && !requeuedByAPersonSince(run, failed.at)) {
    return giveUp(run, step, `${failed.error_kind}, found on resuming`, failed.detail ?? '');
  }
  if (inDoubt(state) && !harmlessToRepeat(run, step)) {
    const settled = await reconcile(run, step, key);
    if (settled === 'completed') return 'next';
    if (settled !== 'not_executed') return settled;
  }
  if (!log(run, { stepId: step.step_id, action: 'execute', key, status: 'started' })) return { kind: 'lease_lost', step: step.step_id };
  let answer: { externalRef: string | null };
  try {
    // Inside the try: an error injected here is a failure of this call, like any other.
    await hit(run, 'before_call', step);
    answer = await run.world.call(step.tool, key, step.args, {
      job: run.job.id,
      step: step.step_id,
      attempt: run.job.attempts,
      worker: run.lease.workerId,
      pid: process.pid,
      fence: run.lease.fence,
    });
  } catch (error) {
    return callFailed(run, step, key, error);
  }
  // If the lease was lost here the effect still happened: the next holder finds
  // the step in doubt and reconciles it.
  if (!log(run, { stepId: step.step_id, action: 'execute', key, status: 'success', externalReference: answer.externalRef })) {
    return { kind: 'lease_lost', step: step.step_id };
  }
  await hit(run, 'after_write', step);
  return 'next';
}

/** Asks the world what became of a step in doubt, and logs the answer. */
async function reconcile(run: PlanRun, step: PlanStep, key: string): Promise<'completed' | 'not_executed' | PlanOutcome> {
  let answer;
  try {
    answer = await run.world.reconcile(step.tool, key, run.lease.fence);
  } catch (error) {
    // The world cannot be asked right now: the step stays in doubt for a later attempt.
    return { kind: 'retry', error: `reconciliation of step ${step.step_id} failed: ${storableError(error, run.secrets)}` };
  }
  const stepId = step.step_id;
  switch (answer.status) {
    case 'completed':
      return log(run, { stepId, action: 'reconcile', key, status: 'success', externalReference: answer.externalRef, detail: 'the world has it' })
        ? 'completed'
        : { kind: 'lease_lost', step: stepId };
    case 'not_executed':
      return log(run, { stepId, action: 'reconcile', key, status: 'not_executed', detail: 'the world never applied it' })
        ? 'not_executed'
        : { kind: 'lease_lost', step: stepId };
    case 'unknown':
      log(run, { stepId, action: 'reconcile', key, status: 'unknown', detail: answer.reason });
      return {
        kind: 'review',
        reason: `outcome of step ${stepId} (${step.tool}) is unknown and reconciliation cannot settle it (${answer.reason}); a person must check before it is repeated`,
      };
    default: {
      const unreachable: never = answer;
      throw new Error(`unknown reconciliation ${JSON.stringify(unreachable)}`);
    }
  }
}

async function callFailed(run: PlanRun, step: PlanStep, key: string, error: unknown): Promise<StepResult> {
  // The world saw a later holder's fence on this key: this lease has moved on, and nothing was applied.
  if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'WORLD_STALE_FENCE') return { kind: 'lease_lost', step: step.step_id };
  const kind = classifyError(error);
  const text = storableError(error, run.secrets);
  const stepId = step.step_id;
  if (kind === 'unknown_outcome') {
    if (!log(run, { stepId, action: 'execute', key, status: 'unknown', detail: text })) return { kind: 'lease_lost', step: stepId };
    await hit(run, isTimeout(error) ? 'on_timeout' : 'response_lost', step);
    // Seed 000 retried every timeout; for an effect that is not idempotent that can apply it twice.
    if (harmlessToRepeat(run, step)) return retryOrGiveUp(run, step, 'unknown outcome', text);
    if (step.retry_policy === 'manual_only') {
      return { kind: 'review', reason: `outcome of step ${stepId} (${step.tool}) is unknown and its retry policy is manual_only`, error: text };
    }
    const settled = await reconcile(run, step, key);
    if (settled === 'completed') return 'next';
    if (settled === 'not_executed') return retryOrGiveUp(run, step, 'unknown outcome, reconciled as not executed', text);
    return settled;
  }
  if (!log(run, { stepId, action: 'execute', key, status: 'failed', detail: text, errorKind: kind })) return { kind: 'lease_lost', step: stepId };
  if (kind === 'transient' && step.retry_policy !== 'manual_only') return retryOrGiveUp(run, step, kind, text);
  return giveUp(run, step, kind, text);
}

/** Another attempt while the budget lasts; after the last one the step has failed for good. */
function retryOrGiveUp(run: PlanRun, step: PlanStep, why: string, text: string): PlanOutcome {
  if (run.job.attempts < run.job.max_attempts) return { kind: 'retry', error: text };
  return giveUp(run, step, `${why}, retries exhausted`, text);
}

/** A step failed for good: undo what may have happened, or stop for a person when nothing did. */
function giveUp(run: PlanRun, step: PlanStep, why: string, text: string): PlanOutcome {
  const reason = `step ${step.step_id} (${step.tool}) failed for good (${why})`;
  const states = stepStates(run.db, run.job.id);
  const happened = run.plan.steps.some((s) => s.has_side_effect && states.get(s.step_id)?.mayHaveHappened);
  return happened ? { kind: 'compensate', reason, error: text } : { kind: 'review', reason, error: text };
}

/** Done only on evidence: each effect the world can be asked about is asked about again. */
async function verify(run: PlanRun): Promise<PlanOutcome> {
  const states = stepStates(run.db, run.job.id);
  const evidence: Array<{ step: string; ref: string | null }> = [];
  for (const step of run.plan.steps) {
    if (!step.has_side_effect) continue;
    const key = stepKey(run.job.idempotency_key, step.step_id);
    if (toolMetadata(step.tool)?.lookup) {
      let answer;
      try {
        answer = await run.world.reconcile(step.tool, key, run.lease.fence);
      } catch (error) {
        return { kind: 'retry', error: `verification could not ask the world: ${storableError(error, run.secrets)}` };
      }
      if (answer.status !== 'completed') {
        return { kind: 'review', reason: `verification failed: the world does not have step ${step.step_id} (${answer.status})` };
      }
      evidence.push({ step: step.step_id, ref: answer.externalRef });
    } else {
      // No lookup (send_email): the success checkpoint written after the world's answer is the evidence.
      evidence.push({ step: step.step_id, ref: states.get(step.step_id)?.effect?.external_reference ?? null });
    }
  }
  await hit(run, 'after_verify');
  return { kind: 'done', digest: createHash('sha256').update(JSON.stringify(evidence)).digest('hex') };
}
