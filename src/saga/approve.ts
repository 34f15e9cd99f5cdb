import type { SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { parsePlan, stepKey } from './plan.js';
import { appendTx, stepStates } from './tx-log.js';
import { InputError } from '../kernel/errors.js';

/** The job is not waiting for an approval: bad input from the person, not a failure of the queue. */
export class ApprovalError extends InputError {
  readonly code = 'QD_NOT_AWAITING_APPROVAL';
}

/**
 * Records a person's approval of the prepared step a job waits on, then sends
 * the job back to run it (the commit of prepare-approve-commit). Refuses a job
 * that is not waiting for one. Returns the approved step's id.
 */
export function approveStep(queue: SqliteQueue, jobId: number, by: string): string {
  const job = queue.job(jobId);
  if (!job) throw new ApprovalError(`no job ${jobId}`);
  if (job.status !== 'review' || job.action !== 'plan') throw new ApprovalError(`job ${jobId} is ${job.status}, not waiting for an approval`);
  const plan = parsePlan((JSON.parse(job.payload_json) as { plan?: unknown }).plan);
  const states = stepStates(queue.db, jobId);
  const step = plan.steps.find((s) => s.requires_approval && states.get(s.step_id)?.prepared && !states.get(s.step_id)?.approvedBy);
  if (!step) throw new ApprovalError(`job ${jobId} has no prepared step waiting for approval`);
  const now = queue.options.clock.now();
  queue.db
    .transaction(() => {
      appendTx(
        queue.db,
        { kind: 'human', jobId, by: `human:${by}` },
        { stepId: step.step_id, action: 'approve', key: stepKey(job.idempotency_key, step.step_id), status: 'success', attempt: job.attempts, detail: `approved by ${by}` },
        now,
      );
      if (!queue.requeueFromReview(jobId, by, `approved step ${step.step_id}`)) throw new ApprovalError(`job ${jobId} left review meanwhile`);
    })
    .immediate();
  return step.step_id;
}
