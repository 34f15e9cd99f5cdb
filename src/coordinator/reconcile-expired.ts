import { failpoint } from '../faults/failpoint.js';
import type { ExpiredLeaseRelease, QueueConnection } from '../port/adapter.js';
import type { TxEntry } from '../port/checkpoint.js';
import type { Claim } from '../port/delivery.js';
import { defaultRelease } from '../port/release.js';
import type { Plan, PlanStep } from '../saga/plan.js';
import { REFERENCE_SAGA_RULES, type SagaRules } from '../saga/rules.js';
import { inDoubt, stepStates } from '../saga/tx-log.js';
import type { WorldPort } from '../saga/world-port.js';

export interface Released {
  jobId: string;
  to: 'retry' | 'review';
  reason: string;
}

function planOf(job: Claim, parsePlan: (value: unknown) => Plan): Plan | null {
  if (job.action !== 'plan') return null;
  try {
    return parsePlan((JSON.parse(job.payload) as { plan?: unknown }).plan);
  } catch {
    return null;
  }
}

/** The step a dead holder left in doubt, if repeating it could apply its effect twice. */
async function stepInDoubt(queue: QueueConnection, job: Claim, plan: Plan, rules: SagaRules): Promise<PlanStep | undefined> {
  const states = stepStates(await queue.saga.rows(job.jobId));
  return plan.steps.find((step) => rules.mustReconcile(step) && inDoubt(states.get(step.step_id)));
}

/** The answer of the world as a checkpoint under the expired lease, and where the job goes with it. */
function settledBy(
  answer: Awaited<ReturnType<WorldPort['reconcile']>>,
  job: Claim,
  step: PlanStep,
  key: string,
): { checkpoint: TxEntry; release: ExpiredLeaseRelease } {
  const release = defaultRelease({ attempts: job.attempt, max_attempts: job.maxAttempts, leased_by: job.holder, lease_until: job.leaseUntil });
  const entry = { stepId: step.step_id, action: 'reconcile' as const, key };
  switch (answer.status) {
    case 'completed':
      return {
        checkpoint: { ...entry, status: 'success', externalReference: answer.externalRef, detail: 'the world has it' },
        release: { ...release, reason: `${release.reason}; step ${step.step_id} reconciled: completed (${answer.externalRef})` },
      };
    case 'not_executed':
      return {
        checkpoint: { ...entry, status: 'not_executed', detail: 'the world never applied it' },
        release: { ...release, reason: `${release.reason}; step ${step.step_id} reconciled: not executed` },
      };
    case 'unknown':
      return {
        checkpoint: { ...entry, status: 'unknown', detail: answer.reason },
        release: {
          to: 'review',
          reason:
            `lease of ${job.holder} expired during step ${step.step_id} (${step.tool}); its outcome ` +
            `is unknown and reconciliation cannot settle it (${answer.reason}); a person must check`,
        },
      };
    default: {
      const unreachable: never = answer;
      throw new Error(`unknown reconciliation ${JSON.stringify(unreachable)}`);
    }
  }
}

/*
 * The coordinator's lease sweep. A job whose holder died goes back to retry,
 * unless the dead holder's last checkpoint says a non-idempotent effect may
 * have happened: then the world is asked first. Completed or not executed, the
 * log records the answer and the job retries from there; unknown (a tool with
 * no lookup), the job goes to review with the reason, never to a blind retry.
 * The answer and the release commit together or not at all: if the lease came
 * back to life meanwhile (a zombie's heartbeat), neither may stand.
 */
export async function reconcileExpiredLeases(
  queue: QueueConnection,
  world: WorldPort,
  coordinatorId: string,
  rules: SagaRules = REFERENCE_SAGA_RULES,
): Promise<Released[]> {
  const takeover = queue.takeover;
  if (!takeover) return [];
  const expired = await takeover.expiredLeases();
  if (expired.length === 0) return [];
  // Loaded at the first expired lease, not at start: a plan is parsed with zod, and most coordinators never see a lease expire.
  const { parsePlan, stepKey } = await import('../saga/plan.js');
  const released: Released[] = [];
  for (const job of expired) {
    const plan = planOf(job, parsePlan);
    const step = plan ? await stepInDoubt(queue, job, plan, rules) : undefined;
    const where = { worker: coordinatorId, jobId: job.jobId, jobKey: job.key, attempt: job.attempt };
    if (!step) {
      const release = defaultRelease({ attempts: job.attempt, max_attempts: job.maxAttempts, leased_by: job.holder, lease_until: job.leaseUntil });
      await failpoint('before_release', where);
      if (await takeover.releaseExpired(job, release, coordinatorId)) released.push({ jobId: job.jobId, ...release });
      continue;
    }
    const key = stepKey(job.key, step.step_id);
    let answer: Awaited<ReturnType<WorldPort['reconcile']>>;
    try {
      // Fenced one past the expired lease: the dead (or merely paused) holder can never apply it after this answer.
      answer = await world.reconcile(step.tool, key, { epoch: job.epoch + 1, job: job.jobId });
    } catch {
      continue; // The world cannot be asked now; the next tick (or a worker's claim) will.
    }
    const { checkpoint, release } = settledBy(answer, job, step, key);
    await failpoint('before_release', where);
    if (await takeover.releaseExpired(job, release, coordinatorId, checkpoint)) released.push({ jobId: job.jobId, ...release });
  }
  return released;
}
