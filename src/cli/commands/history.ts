import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { SqliteQueue } from '../../adapters/sqlite/sqlite-queue.js';
import { defineCommand } from '../command.js';
import { UsageError } from '../../kernel/errors.js';
import { existingFile } from '../paths.js';

/** `queue-drill history`: one job's life rebuilt from the store and the world's ledger. */
export const historyCommand = defineCommand({
  name: 'history',
  describe: "rebuild one job's life: states, steps, effects in the world, compensations, incidents",
  positional: ['job'],
  options: {
    job: { type: 'number', demandOption: true, describe: 'the job id' },
    store: { type: 'string', demandOption: true },
    ledger: { type: 'string', describe: "the world's ledger file, for the effects" },
    json: { type: 'boolean', default: false },
  },
  async run(args) {
    const { jobHistory, renderHistory } = await import('../../observe/history.js');
    const queue = SqliteQueue.open(existingFile(args.store, '--store'), { clock: systemClock(), random: seededRandom(1) });
    try {
      const history = jobHistory(queue, args.job, args.ledger === undefined ? undefined : existingFile(args.ledger, '--ledger'));
      if (!history) throw new UsageError(`no job ${args.job} in ${args.store}`);
      process.stdout.write(`${args.json ? JSON.stringify(history, null, 2) : renderHistory(history)}\n`);
    } finally {
      queue.close();
    }
  },
});
