import type { Claim } from '../../port/delivery.js';
import type { JobSnapshot } from '../../port/snapshot.js';
import type { ObservedRecord, RecordStep } from '../broker-record/observed-record.js';
import type { DeliveredJob } from './message.js';

/** What a delivery is, once written down: an attempt to run, or a message past its job's budget that its consumer must reject. */
export type RecordedDelivery = { kind: 'attempt'; job: JobSnapshot; attempt: number } | { kind: 'past-budget'; job: JobSnapshot; attempt: number };

/** The attempt a delivery is: counted by the broker where it counts (before + x-delivery-count + 1), else by what the record saw. */
export function attemptOf(delivered: DeliveredJob, job: JobSnapshot): number {
  return delivered.deliveryCount === null ? job.attempts + 1 : delivered.attemptsBefore + delivered.deliveryCount + 1;
}

/** The claim a recorded delivery is for its holder: its attempt is its epoch (RabbitMQ fences by channel, not by number). */
export function claimOf(delivered: DeliveredJob, recorded: RecordedDelivery, holder: string, token: string | null): Claim {
  return {
    jobId: delivered.id,
    key: delivered.key,
    action: delivered.action,
    payload: delivered.payload,
    maxAttempts: recorded.job.maxAttempts,
    token,
    leaseUntil: null,
    attempt: recorded.attempt,
    epoch: recorded.attempt,
    holder,
  };
}

/**
 * Writes a delivery down: the job (made here if its producer has not written
 * it yet: the message is the proof it was published), then, where the record
 * still shows another holder running it, the broker's take-back (it gives a
 * message back when its holder's channel closes), then the new holder's
 * attempt. A delivery past the job's own budget is only read: its consumer
 * rejects it, and records that once RabbitMQ confirmed it.
 */
export function recordDelivery(record: ObservedRecord, delivered: DeliveredJob, workerId: string): RecordedDelivery {
  record.addJob(delivered, 'producer');
  const before = record.job(delivered.id);
  if (!before) throw new Error(`job ${delivered.id} is missing from the record it was just written to`);
  const attempt = attemptOf(delivered, before);
  if (attempt > before.maxAttempts) return { kind: 'past-budget', job: before, attempt };
  const job = record.change(delivered.id, (now) => {
    const steps: RecordStep[] = [];
    if (now.status === 'running') {
      steps.push({
        to: 'retry',
        worker: null,
        actor: 'coordinator',
        reason: `given back by RabbitMQ: the channel of ${now.holder ?? 'its holder'} closed before it settled`,
        set: { holder: null },
      });
    }
    const count =
      delivered.deliveryCount === null ? (delivered.redelivered ? 'redelivered' : 'first delivery') : `x-delivery-count ${delivered.deliveryCount}`;
    steps.push({
      to: 'running',
      worker: workerId,
      actor: 'worker',
      reason: `delivered (${count})`,
      set: { attempts: attempt, epoch: attempt, holder: workerId, leaseUntil: null, nextRunAt: null },
    });
    return steps;
  });
  return { kind: 'attempt', job: job ?? before, attempt };
}

/**
 * Records a job rejected unrun to the dead-letter queue by the consumer it
 * was delivered to past its budget: the queue's own bound (as a quorum
 * queue's limit would be), so it is written as the queue's change, not as a
 * holder's. RabbitMQ had given it back when its last holder's channel closed.
 */
export function recordPastBudget(record: ObservedRecord, jobId: string, workerId: string): void {
  record.change(jobId, (job) => {
    if (job.status === 'review' || job.status === 'done') return [];
    const attempts = `(${job.attempts} of ${job.maxAttempts})`;
    const reason =
      job.status === 'running'
        ? `given back by RabbitMQ when the channel of ${job.holder ?? 'its holder'} closed on its last attempt ${attempts}; ` +
          `delivered again past its budget, rejected unrun to the dead-letter queue by ${workerId}`
        : `retries exhausted: delivered again after its last attempt ${attempts}, rejected unrun to the dead-letter queue by ${workerId}`;
    return [
      { to: 'review', worker: null, actor: 'coordinator', reason, set: { holder: null, leaseUntil: null, outcome: 'review', reviewReason: reason } },
    ];
  });
}
