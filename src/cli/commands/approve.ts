import { defineCommand } from '../command.js';
import { observedQueue } from '../observed-queue.js';
import { QUEUE_OPTIONS } from '../queue-options.js';

/** `queue-drill approve`: a person's recorded approval of the step a job waits on; the job runs again. */
export const approveCommand = defineCommand({
  name: 'approve',
  describe: 'approve the prepared high-risk step a job waits on in review (a recorded human action)',
  positional: ['job'],
  options: {
    job: { type: 'string', demandOption: true, describe: 'the job id (queue-drill status lists the jobs waiting in review)' },
    ...QUEUE_OPTIONS,
    by: { type: 'string', default: process.env.USER ?? 'operator', describe: 'who approves' },
  },
  async run(args) {
    const { approveStep } = await import('../../saga/approve.js');
    const queue = await observedQueue(args);
    try {
      const step = await approveStep(queue, args.job, args.by);
      process.stdout.write(`${JSON.stringify({ event: 'approved', job: args.job, step, by: args.by })}\n`);
    } finally {
      await queue.close();
    }
  },
});
