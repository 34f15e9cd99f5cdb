import type { JobSnapshot } from '../../port/snapshot.js';
import type { RecordStep } from '../broker-record/observed-record.js';
import type { Delivered } from './message.js';

/*
 * How one delivery JetStream made is written into the record, as steps from
 * the job as the record has it. The job's attempt and epoch are the
 * attempts it had before its message (a person's requeue makes a new one)
 * plus JetStream's delivery count. Before this holder's claim, the record
 * catches up with what the delivery count says happened since it last
 * heard: a previous holder whose ack wait passed (JetStream redelivered: the
 * queue's own takeover, recorded as the coordinator's), and deliveries no
 * process of the drill lived to record (a worker killed between JetStream's
 * send and its write). A delivery past the job's own budget (max_deliver is
 * the largest budget of the drill) is not a claim: the worker terminates it
 * unrun, and the job goes to review from its last holder's lease.
 */

/** The steps one delivery makes, and whether it is past its job's budget (to be terminated unrun, not run). */
export interface DeliverySteps {
  steps: RecordStep[];
  overBudget: boolean;
}

function redelivered(job: Pick<JobSnapshot, 'epoch' | 'holder'>, attemptsBefore: number): RecordStep {
  const delivery = job.epoch - attemptsBefore;
  return {
    to: 'retry',
    worker: null,
    actor: 'coordinator',
    reason: `redelivered by JetStream: the ack wait of delivery ${delivery} (held by ${job.holder ?? 'an unknown holder'}) passed without an ack`,
    set: { holder: null, leaseUntil: null },
  };
}

/** The steps for delivery `d` to `workerId`, holding it until `leaseUntil`, of `job` as the record has it now. */
export function deliverySteps(job: JobSnapshot, d: Delivered, workerId: string, leaseUntil: string): DeliverySteps {
  const epoch = d.attemptsBefore + d.deliveryCount;
  // A delivery the record already has (or one older than what it has): nothing to add.
  if (job.epoch >= epoch) return { steps: [], overBudget: false };
  const budget = job.maxAttempts;
  const steps: RecordStep[] = [];
  let status = job.status;
  let held = { epoch: job.epoch, holder: job.holder };
  const releaseIfHeld = () => {
    if (status !== 'running') return;
    steps.push(redelivered(held, d.attemptsBefore));
    status = 'retry';
  };
  // The deliveries JetStream counted that nobody recorded: each a claim by an unknown holder, taken back.
  for (let e = Math.max(job.epoch, d.attemptsBefore) + 1; e < epoch && e <= budget; e++) {
    releaseIfHeld();
    steps.push({
      to: 'running',
      worker: null,
      actor: 'worker',
      reason: `delivery ${e - d.attemptsBefore} by JetStream that no process of the drill recorded (its receiver died first)`,
      set: { attempts: e, epoch: e, holder: null, leaseUntil: null, nextRunAt: null },
    });
    status = 'running';
    held = { epoch: e, holder: null };
  }
  if (epoch > budget) {
    if (status === 'running') {
      const reason =
        `retries exhausted: the ack wait of ${held.holder ?? 'its holder'} ran out on its last attempt (${held.epoch} of ${budget}); ` +
        `JetStream delivered it again (delivery ${d.deliveryCount}) and ${workerId} terminated it unrun`;
      steps.push({
        to: 'review',
        worker: null,
        actor: 'coordinator',
        reason,
        set: { outcome: 'review', reviewReason: reason, holder: null, leaseUntil: null, nextRunAt: null },
      });
    }
    return { steps, overBudget: true };
  }
  releaseIfHeld();
  steps.push({
    to: 'running',
    worker: workerId,
    actor: 'worker',
    reason: d.deliveryCount === 1 ? 'delivered by JetStream' : `delivered by JetStream again (delivery ${d.deliveryCount})`,
    set: { attempts: epoch, epoch, holder: workerId, leaseUntil, nextRunAt: null },
  });
  return { steps, overBudget: false };
}
