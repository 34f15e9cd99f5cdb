import { UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { observedQueue } from '../observed-queue.js';
import { existingFile } from '../paths.js';
import { QUEUE_OPTIONS } from '../queue-options.js';

/** `queue-drill history`: one job's life rebuilt from the queue and the world's ledger. */
export const historyCommand = defineCommand({
  name: 'history',
  describe: "rebuild one job's life: states, steps, effects in the world, compensations, incidents",
  positional: ['job'],
  options: {
    job: { type: 'string', demandOption: true, describe: 'the job id' },
    ...QUEUE_OPTIONS,
    ledger: { type: 'string', describe: "the world's ledger file, for the effects" },
    json: { type: 'boolean', default: false },
  },
  async run(args) {
    const { jobHistory, renderHistory } = await import('../../observe/history.js');
    const ledger = args.ledger === undefined ? undefined : existingFile(args.ledger, '--ledger');
    const queue = await observedQueue(args);
    try {
      const history = await jobHistory(queue, args.job, ledger);
      if (!history) throw new UsageError(`no job ${args.job} in ${args.store}`);
      process.stdout.write(`${args.json ? JSON.stringify(history, null, 2) : renderHistory(history)}\n`);
    } finally {
      await queue.close();
    }
  },
});
