import { failpoint } from '../faults/failpoint.js';
import type { FailpointName } from '../faults/points.js';
import { classifyError } from '../kernel/job-errors.js';
import { storableError } from '../kernel/redact.js';
import type { SagaLog, TxEntry, TxRow } from '../port/checkpoint.js';
import type { Claim, Settlement } from '../port/delivery.js';
import { toolMetadata } from '../world/catalogue.js';
import { type Plan, type PlanStep, stepKey } from './plan.js';
import { policyViolations } from './policy.js';
import { REFERENCE_SAGA_RULES, type SagaRules } from './rules.js';
import { inDoubt, stepStates } from './tx-log.js';
import type { Reconciliation, WorldPort } from './world-port.js';

/** How a worker's run of a plan ended; the queue turns it into one write. */
export type PlanOutcome = Settlement;

export interface PlanRun {
  /** The job as its holder claimed it: id, key, attempt, epoch, holder. */
  claim: Claim;
  /** The job's checkpoints, fenced for this holder. */
  txLog: SagaLog;
  plan: Plan;
  world: WorldPort;
  /** The payload's secret values, redacted from anything stored. */
  secrets: readonly string[];
  /** @default REFERENCE_SAGA_RULES */
  rules?: SagaRules;
}

type StepResult = 'next' | PlanOutcome;

/*
 * Runs a plan's steps in order, the transaction sketch's transactional runtime:
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

function checkpoint(run: PlanRun, entry: TxEntry): Promise<boolean> {
  return run.txLog.append(entry);
}

/** Where each step stands, rebuilt from the log as it is now. */
async function states(run: PlanRun) {
  return stepStates(await run.txLog.rows());
}

/** What the world is shown with a call or a question: this holder's epoch, fencing every older holder of the job off. */
function fenceOf(run: PlanRun): { epoch: number; job: string } {
  return { epoch: run.claim.epoch, job: run.claim.jobId };
}

function hit(run: PlanRun, point: FailpointName, step?: PlanStep): Promise<void> {
  return failpoint(point, {
    worker: run.claim.holder,
    jobId: run.claim.jobId,
    jobKey: run.claim.key,
    attempt: run.claim.attempt,
    ...(step ? { step: step.step_id, tool: step.tool, key: stepKey(run.claim.key, step.step_id) } : {}),
  });
}

/** Whether an unknown outcome came from waiting too long (rather than a lost answer or a 500). */
function isTimeout(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code === 'WORLD_TIMEOUT' || /timeout|timed out/i.test(error instanceof Error ? error.message : String(error));
}

/** Whether a person sent the job back to run after the checkpoint `since` (a requeue from review, recorded in the log). */
function requeuedByAPersonSince(rows: readonly TxRow[], since: TxRow): boolean {
  return rows.some((row) => row.action === 'requeue' && row.id > since.id);
}

/** Repeating the step cannot apply its effect twice (by the implementation's rules). */
function harmlessToRepeat(run: PlanRun, step: PlanStep): boolean {
  return !(run.rules ?? REFERENCE_SAGA_RULES).mustReconcile(step);
}

async function runStep(run: PlanRun, step: PlanStep): Promise<StepResult> {
  const key = stepKey(run.claim.key, step.step_id);
  const rows = await run.txLog.rows();
  const state = stepStates(rows).get(step.step_id);
  if (state?.effect?.status === 'success') return 'next';
  if (step.requires_approval && !state?.approvedBy) {
    if (
      !state?.prepared &&
      !(await checkpoint(run, { stepId: step.step_id, action: 'prepare', key, status: 'success', detail: 'prepared; waiting for approval' }))
    ) {
      return { kind: 'lease_lost', step: step.step_id };
    }
    // No command in the reason: only where it is shown is the queue's store known, and there the complete command is printed.
    return { kind: 'review', awaitingApproval: true, reason: `approval required before step ${step.step_id} (${step.tool})` };
  }
  // The last holder failed this call for good and died before it said so: do what it would have done
  // (unless a person has sent the job back since: then it is meant to be tried again).
  const failed = state?.effect?.status === 'failed' ? state.effect : undefined;
  if (failed?.error_kind && failed.error_kind !== 'transient' && !requeuedByAPersonSince(rows, failed)) {
    return giveUp(run, step, `${failed.error_kind}, found on resuming`, failed.detail ?? '');
  }
  if (inDoubt(state) && !harmlessToRepeat(run, step)) {
    const settled = await reconcile(run, step, key);
    if (settled === 'completed') return 'next';
    if (settled !== 'not_executed') return settled;
  }
  if (!(await checkpoint(run, { stepId: step.step_id, action: 'execute', key, status: 'started' })))
    return { kind: 'lease_lost', step: step.step_id };
  let answer: { externalRef: string | null };
  try {
    // Inside the try: an error injected here is a failure of this call, like any other.
    await hit(run, 'before_call', step);
    answer = await run.world.call(step.tool, key, step.args, {
      job: run.claim.jobId,
      step: step.step_id,
      attempt: run.claim.attempt,
      worker: run.claim.holder,
      pid: process.pid,
      fence: run.claim.epoch,
    });
  } catch (error) {
    return callFailed(run, step, key, error);
  }
  // If the lease was lost here the effect still happened: the next holder finds
  // the step in doubt and reconciles it.
  if (!(await checkpoint(run, { stepId: step.step_id, action: 'execute', key, status: 'success', externalReference: answer.externalRef }))) {
    return { kind: 'lease_lost', step: step.step_id };
  }
  await hit(run, 'after_write', step);
  return 'next';
}

/** Asks the world what became of a step in doubt, and logs the answer. */
async function reconcile(run: PlanRun, step: PlanStep, key: string): Promise<'completed' | 'not_executed' | PlanOutcome> {
  let answer: Reconciliation;
  try {
    answer = await run.world.reconcile(step.tool, key, fenceOf(run));
  } catch (error) {
    // The world cannot be asked right now: the step stays in doubt for a later attempt.
    return { kind: 'retry', error: `reconciliation of step ${step.step_id} failed: ${storableError(error, run.secrets)}` };
  }
  const stepId = step.step_id;
  switch (answer.status) {
    case 'completed':
      return (await checkpoint(run, {
        stepId,
        action: 'reconcile',
        key,
        status: 'success',
        externalReference: answer.externalRef,
        detail: 'the world has it',
      }))
        ? 'completed'
        : { kind: 'lease_lost', step: stepId };
    case 'not_executed':
      return (await checkpoint(run, { stepId, action: 'reconcile', key, status: 'not_executed', detail: 'the world never applied it' }))
        ? 'not_executed'
        : { kind: 'lease_lost', step: stepId };
    case 'unknown':
      await checkpoint(run, { stepId, action: 'reconcile', key, status: 'unknown', detail: answer.reason });
      return {
        kind: 'review',
        reason:
          `outcome of step ${stepId} (${step.tool}) is unknown and reconciliation cannot ` +
          `settle it (${answer.reason}); a person must check before it is repeated`,
      };
    default: {
      const unreachable: never = answer;
      throw new Error(`unknown reconciliation ${JSON.stringify(unreachable)}`);
    }
  }
}

async function callFailed(run: PlanRun, step: PlanStep, key: string, error: unknown): Promise<StepResult> {
  // The world saw a later holder's fence on this key: this lease has moved on, and nothing was applied.
  if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'WORLD_STALE_FENCE')
    return { kind: 'lease_lost', step: step.step_id };
  const kind = classifyError(error);
  const text = storableError(error, run.secrets);
  const stepId = step.step_id;
  if (kind === 'unknown_outcome') {
    if (!(await checkpoint(run, { stepId, action: 'execute', key, status: 'unknown', detail: text }))) return { kind: 'lease_lost', step: stepId };
    await hit(run, isTimeout(error) ? 'on_timeout' : 'response_lost', step);
    // The queue sketch retried every timeout; for an effect that is not idempotent that can apply it twice.
    if (harmlessToRepeat(run, step)) return retryOrGiveUp(run, step, 'unknown outcome', text);
    if (step.retry_policy === 'manual_only') {
      return { kind: 'review', reason: `outcome of step ${stepId} (${step.tool}) is unknown and its retry policy is manual_only`, error: text };
    }
    const settled = await reconcile(run, step, key);
    if (settled === 'completed') return 'next';
    if (settled === 'not_executed') return retryOrGiveUp(run, step, 'unknown outcome, reconciled as not executed', text);
    return settled;
  }
  if (!(await checkpoint(run, { stepId, action: 'execute', key, status: 'failed', detail: text, errorKind: kind })))
    return { kind: 'lease_lost', step: stepId };
  if (kind === 'transient' && step.retry_policy !== 'manual_only') return retryOrGiveUp(run, step, kind, text);
  return giveUp(run, step, kind, text);
}

/** Another attempt while the budget lasts; after the last one the step has failed for good. */
async function retryOrGiveUp(run: PlanRun, step: PlanStep, why: string, text: string): Promise<PlanOutcome> {
  if (run.claim.attempt < run.claim.maxAttempts) return { kind: 'retry', error: text };
  return giveUp(run, step, `${why}, retries exhausted`, text);
}

/** A step failed for good: undo what may have happened, or stop for a person when nothing did. */
async function giveUp(run: PlanRun, step: PlanStep, why: string, text: string): Promise<PlanOutcome> {
  const reason = `step ${step.step_id} (${step.tool}) failed for good (${why})`;
  const now = await states(run);
  const happened = run.plan.steps.some((s) => s.has_side_effect && now.get(s.step_id)?.mayHaveHappened);
  return happened ? { kind: 'compensate', reason, error: text } : { kind: 'review', reason, error: text };
}

/** Done only on evidence: each effect the world can be asked about is asked about again. */
async function verify(run: PlanRun): Promise<PlanOutcome> {
  const logged = await states(run);
  const evidence: Array<{ step: string; ref: string | null }> = [];
  for (const step of run.plan.steps) {
    if (!step.has_side_effect) continue;
    const key = stepKey(run.claim.key, step.step_id);
    if (toolMetadata(step.tool)?.lookup) {
      let answer: Reconciliation;
      try {
        answer = await run.world.reconcile(step.tool, key, fenceOf(run));
      } catch (error) {
        return { kind: 'retry', error: `verification could not ask the world: ${storableError(error, run.secrets)}` };
      }
      if (answer.status !== 'completed') {
        return { kind: 'review', reason: `verification failed: the world does not have step ${step.step_id} (${answer.status})` };
      }
      evidence.push({ step: step.step_id, ref: answer.externalRef });
    } else {
      // No lookup (send_email): the success checkpoint written after the world's answer is the evidence.
      evidence.push({ step: step.step_id, ref: logged.get(step.step_id)?.effect?.external_reference ?? null });
    }
  }
  await hit(run, 'after_verify');
  // node:crypto is loaded at the first done, not at start: over half of a drill's workers never complete a job, and loading it costs a start 2-3 ms of CPU.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return { kind: 'done', digest: createHash('sha256').update(JSON.stringify(evidence)).digest('hex') };
}
