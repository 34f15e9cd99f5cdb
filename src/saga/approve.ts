import { InputError } from '../kernel/errors.js';
import type { QueueConnection } from '../port/adapter.js';
import type { JobSnapshot } from '../port/snapshot.js';
import { parsePlan, stepKey } from './plan.js';
import { stepStates } from './tx-log.js';

/** The job is not waiting for an approval: bad input from the person, not a failure of the queue. */
export class ApprovalError extends InputError {
  readonly code = 'QD_NOT_AWAITING_APPROVAL';
}

/**
 * Records a person's approval of the prepared step a job waits on and sends
 * the job back to run it (the commit of prepare-approve-commit): the approval
 * checkpoint and the requeue commit together. Refuses a job that is not
 * waiting for one. Returns the approved step's id.
 */
export async function approveStep(queue: QueueConnection, jobId: string, by: string, known?: JobSnapshot): Promise<string> {
  if (!queue.human) throw new ApprovalError(`this queue offers no way for a person to send job ${jobId} back to run`);
  const job = known ?? (await queue.snapshot()).jobs.find((j) => j.id === jobId);
  if (!job) throw new ApprovalError(`no job ${jobId}`);
  if (job.status !== 'review' || job.action !== 'plan') throw new ApprovalError(`job ${jobId} is ${job.status}, not waiting for an approval`);
  const plan = parsePlan((JSON.parse(job.payload) as { plan?: unknown }).plan);
  const states = stepStates(await queue.saga.rows(jobId));
  const step = plan.steps.find((s) => s.requires_approval && states.get(s.step_id)?.prepared && !states.get(s.step_id)?.approvedBy);
  if (!step) throw new ApprovalError(`job ${jobId} has no prepared step waiting for approval`);
  const approval = {
    stepId: step.step_id,
    action: 'approve' as const,
    key: stepKey(job.key, step.step_id),
    status: 'success' as const,
    detail: `approved by ${by}`,
  };
  if (!(await queue.human.requeueFromReview(jobId, by, `approved step ${step.step_id}`, approval)))
    throw new ApprovalError(`job ${jobId} left review meanwhile`);
  return step.step_id;
}
