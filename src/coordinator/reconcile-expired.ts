import type { JobRow } from '../queue/job.js';
import { defaultRelease, releaseExpiredLease } from '../adapters/sqlite/sql/sweep-expired-leases.js';
import type { SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { parsePlan, stepKey, type Plan, type PlanStep } from '../saga/plan.js';
import { REFERENCE_SAGA_RULES, type SagaRules } from '../saga/rules.js';
import { appendTx, inDoubt, stepStates } from '../saga/tx-log.js';
import type { WorldPort } from '../saga/world-port.js';

// Thrown inside the transaction to roll back a reconciliation whose lease is no longer the expired one.
class LeaseRevived extends Error {}

export interface Released {
  jobId: number;
  to: 'retry' | 'review';
  reason: string;
}

function planOf(job: JobRow): Plan | null {
  if (job.action !== 'plan') return null;
  try {
    return parsePlan((JSON.parse(job.payload_json) as { plan?: unknown }).plan);
  } catch {
    return null;
  }
}

/** The step a dead worker left in doubt, if repeating it could apply its effect twice. */
function stepInDoubt(queue: SqliteQueue, job: JobRow, plan: Plan, rules: SagaRules): PlanStep | undefined {
  const states = stepStates(queue.db, job.id);
  return plan.steps.find((step) => rules.mustReconcile(step) && inDoubt(states.get(step.step_id)));
}

/*
 * The coordinator's lease sweep. A job whose worker died goes back to retry,
 * unless the dead worker's last checkpoint says a non-idempotent effect may
 * have happened: then the world is asked first. Completed or not executed, the
 * log records the answer and the job retries from there; unknown (a tool with
 * no lookup), the job goes to review with the reason, never to a blind retry.
 */
export async function reconcileExpiredLeases(
  queue: SqliteQueue,
  world: WorldPort,
  coordinatorId: string,
  rules: SagaRules = REFERENCE_SAGA_RULES,
): Promise<Released[]> {
  const released: Released[] = [];
  const input = { skewMarginMs: queue.skewMarginMs, actor: 'coordinator' as const, worker: coordinatorId };
  for (const job of queue.expiredLeases()) {
    const plan = planOf(job);
    const step = plan ? stepInDoubt(queue, job, plan, rules) : undefined;
    let release = defaultRelease(job);
    if (step) {
      const key = stepKey(job.idempotency_key, step.step_id);
      let answer;
      try {
        // Fenced one past the expired lease: the dead (or merely paused) holder can never apply it after this answer.
        answer = await world.reconcile(step.tool, key, job.lease_fence + 1);
      } catch {
        continue; // The world cannot be asked now; the next tick (or a worker's claim) will.
      }
      const now = queue.options.clock.now();
      const guard = { kind: 'expired' as const, jobId: job.id, fence: job.lease_fence, by: coordinatorId };
      const entry = { stepId: step.step_id, action: 'reconcile' as const, key, attempt: job.attempts };
      // The answer and the release commit together or not at all: if the lease
      // came back to life meanwhile (a zombie's heartbeat), neither may stand.
      const settled = queue.db.transaction((): boolean => {
        let logged: boolean;
        if (answer.status === 'completed') {
          logged = appendTx(queue.db, guard, { ...entry, status: 'success', externalReference: answer.externalRef, detail: 'the world has it' }, now);
          release = { ...release, reason: `${release.reason}; step ${step.step_id} reconciled: completed (${answer.externalRef})` };
        } else if (answer.status === 'not_executed') {
          logged = appendTx(queue.db, guard, { ...entry, status: 'not_executed', detail: 'the world never applied it' }, now);
          release = { ...release, reason: `${release.reason}; step ${step.step_id} reconciled: not executed` };
        } else {
          logged = appendTx(queue.db, guard, { ...entry, status: 'unknown', detail: answer.reason }, now);
          release = {
            to: 'review',
            reason: `lease of ${job.leased_by} expired during step ${step.step_id} (${step.tool}); its outcome is unknown and reconciliation cannot settle it (${answer.reason}); a person must check`,
          };
        }
        if (!logged || !releaseExpiredLease(queue.db, job, release, { ...input, now })) throw new LeaseRevived();
        return true;
      });
      let ok = false;
      try {
        ok = settled.immediate();
      } catch (error) {
        if (!(error instanceof LeaseRevived)) throw error;
      }
      if (ok) released.push({ jobId: job.id, ...release });
      continue;
    }
    const now = queue.options.clock.now();
    if (queue.db.transaction(() => releaseExpiredLease(queue.db, job, release, { ...input, now })).immediate()) {
      released.push({ jobId: job.id, ...release });
    }
  }
  return released;
}
