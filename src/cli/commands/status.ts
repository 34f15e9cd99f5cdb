import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { SqliteQueue } from '../../adapters/sqlite/sqlite-queue.js';
import { defineCommand } from '../command.js';
import { existingFile } from '../paths.js';

/** `queue-drill status`: the queue's vital signs, and every job in review with its reason. */
export const statusCommand = defineCommand({
  name: 'status',
  describe: 'pending, running, retry and review rates, completion time, lease timeouts, and the jobs in review',
  options: {
    store: { type: 'string', demandOption: true },
    json: { type: 'boolean', default: false, describe: 'print JSON' },
  },
  async run(args) {
    const { queueStatus, renderStatus } = await import('../../observe/status.js');
    const queue = SqliteQueue.open(existingFile(args.store, '--store'), { clock: systemClock(), random: seededRandom(1) });
    try {
      const status = queueStatus(queue);
      process.stdout.write(`${args.json ? JSON.stringify(status, null, 2) : renderStatus(status)}\n`);
    } finally {
      queue.close();
    }
  },
});
