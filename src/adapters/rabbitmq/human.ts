import type { HumanOps } from '../../port/adapter.js';
import type { SagaStore } from '../../port/checkpoint.js';
import type { ObservedRecord } from '../broker-record/observed-record.js';
import type { BrokerLink } from './link.js';
import { jobOfMessage, messageFor } from './message.js';
import type { DrillQueues } from './names.js';

/** What a person's requeue needs of its connection. */
export interface HumanContext {
  link: BrokerLink;
  queues: DrillQueues;
  record: ObservedRecord;
  saga: SagaStore;
}

/*
 * A person's requeue, as RabbitMQ operators do it (a shovel, or the management
 * UI's "move messages"): the job's message is taken out of the dead-letter
 * queue and published to the work queue again, one more attempt allowed (its
 * headers carry the attempts it had and the new budget). The checkpoints go to
 * the saga file first, under the epoch the next delivery will have (attempts
 * + 1), so the worker that gets it finds the approval there; the publish is
 * confirmed before the dead letter is acknowledged, so a crash between them
 * leaves the job in both queues rather than in neither.
 */
export function humanOps(context: HumanContext): HumanOps {
  return {
    async requeueFromReview(jobId, by, note, checkpoint) {
      const job = context.record.job(jobId);
      if (job?.status !== 'review') return false;
      const channel = await context.link.scratchChannel();
      try {
        for (;;) {
          const message = await channel.get(context.queues.deadLetters, { noAck: false });
          if (message === false) return false;
          if (message.properties.messageId !== jobId) continue;
          const next = job.attempts + 1;
          const log = await context.saga.logFor({ jobId, attempt: next, epoch: next, holder: `human:${by}` });
          if (checkpoint) await log.append({ ...checkpoint, detail: checkpoint.detail ?? note });
          await log.append({ stepId: '(job)', action: 'requeue', key: job.key, status: 'success', detail: note });
          const maxAttempts = Math.max(job.maxAttempts, next);
          // Before the publish: once the message is back, its next holder may send it to review again.
          context.record.change(jobId, () => [
            {
              to: 'pending',
              worker: null,
              actor: 'human',
              reason: `moved from the dead-letter queue to the work queue by ${by}: ${note}`,
              set: { outcome: null, reviewReason: null, maxAttempts, holder: null },
            },
          ]);
          const { publish } = await context.link.channels();
          const carried = jobOfMessage(message);
          const again = messageFor({ ...carried, maxAttempts }, job.attempts);
          publish.sendToQueue(context.queues.work, again.content, again.options);
          await publish.waitForConfirms();
          channel.ack(message);
          await channel.checkQueue(context.queues.deadLetters);
          return true;
        }
      } finally {
        await channel.close().catch(() => {});
      }
    },
  };
}
