import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { SqliteQueue } from '../../adapters/sqlite/sqlite-queue.js';
import { defineCommand } from '../command.js';
import { existingFile } from '../paths.js';

/** `queue-drill approve`: a person's recorded approval of the step a job waits on; the job runs again. */
export const approveCommand = defineCommand({
  name: 'approve',
  describe: 'approve the prepared high-risk step a job waits on in review (a recorded human action)',
  positional: ['job'],
  options: {
    job: { type: 'number', demandOption: true },
    store: { type: 'string', demandOption: true },
    by: { type: 'string', default: process.env.USER ?? 'operator', describe: 'who approves' },
  },
  async run(args) {
    const { approveStep } = await import('../../saga/approve.js');
    const queue = SqliteQueue.open(existingFile(args.store, '--store'), { clock: systemClock(), random: seededRandom(1) });
    try {
      const step = approveStep(queue, args.job, args.by);
      process.stdout.write(`${JSON.stringify({ event: 'approved', job: args.job, step, by: args.by })}\n`);
    } finally {
      queue.close();
    }
  },
});
