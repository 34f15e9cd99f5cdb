import { failpoint } from '../faults/failpoint.js';
import type { Clock } from '../kernel/clock.js';
import type { LeaseWriteResult } from '../queue/job.js';
import type { Claimed, SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { parsePlan, PlanError } from '../saga/plan.js';
import { runPlan, type PlanOutcome } from '../saga/run-plan.js';
import type { SagaRules } from '../saga/rules.js';
import type { WorldPort } from '../saga/world-port.js';
import type { jsonLogger } from '../kernel/log.js';

/** Runs a plan job and turns its outcome into exactly one queue write. */
export async function runPlanJob(
  queue: SqliteQueue,
  claimed: Claimed,
  payload: Record<string, unknown>,
  deps: { worker: string; world: WorldPort | null; clock: Clock; secrets: readonly string[]; log: ReturnType<typeof jsonLogger>; rules?: SagaRules | undefined },
): Promise<void> {
  const { job, lease } = claimed;
  let outcome: PlanOutcome;
  try {
    const plan = parsePlan(payload.plan);
    outcome = deps.world
      ? await runPlan({ db: queue.db, lease, job, plan, world: deps.world, now: () => deps.clock.now(), secrets: deps.secrets, ...(deps.rules ? { rules: deps.rules } : {}) })
      : { kind: 'review', reason: 'this worker was started without --world; a plan job needs the world' };
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    outcome = { kind: 'review', reason: `the stored plan is invalid: ${error.message}` };
  }
  let write: LeaseWriteResult | null = null;
  switch (outcome.kind) {
    case 'done':
      await failpoint('before_complete', { worker: deps.worker, jobId: job.id, attempt: job.attempts });
      write = queue.complete(lease, outcome.digest);
      break;
    case 'retry':
      write = queue.retry(lease, outcome.error, job.attempts);
      break;
    case 'review':
      write = queue.review(lease, outcome.reason, outcome.error);
      break;
    case 'compensate':
      write = queue.beginCompensation(lease, outcome.reason, outcome.error);
      break;
    case 'lease_lost':
      break;
    default: {
      const unreachable: never = outcome;
      throw new Error(`unknown plan outcome ${JSON.stringify(unreachable)}`);
    }
  }
  deps.log({ event: `plan-${outcome.kind}`, jobId: job.id, attempt: job.attempts, outcome, stored: write?.ok ?? false }, deps.secrets);
}
