import { defineCommand } from '../command.js';

/** `queue-drill queues`: every queue implementation `--queue` accepts, what it is, what it needs, and its version. */
export const queuesCommand = defineCommand({
  name: 'queues',
  describe: 'list every queue --queue accepts: the reference, the real queues observed, the broken variants (each its mistake), what each needs',
  options: {
    json: { type: 'boolean', default: false, describe: 'print the list as JSON' },
  },
  async run(args) {
    const { queueListings, renderQueueListings } = await import('../queue-list.js');
    const { printedCommand } = await import('../../kernel/printed-command.js');
    const listings = queueListings();
    process.stdout.write(`${args.json ? JSON.stringify(listings, null, 2) : renderQueueListings(listings, printedCommand(['run']))}\n`);
  },
});
