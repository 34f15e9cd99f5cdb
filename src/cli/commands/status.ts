import { defineCommand } from '../command.js';
import { observedQueue, queueAddress } from '../observed-queue.js';
import { QUEUE_OPTIONS } from '../queue-options.js';

/** `queue-drill status`: the queue's vital signs, and every job in review with its reason. */
export const statusCommand = defineCommand({
  name: 'status',
  describe: 'pending, running, retry and review rates, completion time, lease timeouts, and the jobs in review',
  options: {
    ...QUEUE_OPTIONS,
    json: { type: 'boolean', default: false, describe: 'print JSON' },
  },
  async run(args) {
    const { queueStatus, renderStatus } = await import('../../observe/status.js');
    const queue = await observedQueue(args);
    try {
      const status = await queueStatus(queue);
      process.stdout.write(`${args.json ? JSON.stringify(status, null, 2) : renderStatus(status, queueAddress(args))}\n`);
    } finally {
      await queue.close();
    }
  },
});
