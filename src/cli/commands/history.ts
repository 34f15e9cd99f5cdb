import { UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { observedQueue, queueAddress } from '../observed-queue.js';
import { existingFile } from '../paths.js';
import { QUEUE_OPTIONS } from '../queue-options.js';

/** `queue-drill history`: one job's life rebuilt from the queue and the world's ledger. */
export const historyCommand = defineCommand({
  name: 'history',
  describe: "rebuild one job's life: states, steps, effects in the world (with --ledger), compensations, incidents",
  positional: ['job'],
  options: {
    job: { type: 'string', demandOption: true, describe: 'the job id' },
    ...QUEUE_OPTIONS,
    ledger: {
      type: 'string',
      describe: "the world's ledger file, for the effects (a drill's is ledger.db in the scenario's run directory); without it they are left out",
    },
    json: { type: 'boolean', default: false, describe: 'print JSON' },
  },
  async run(args) {
    const { jobHistory, renderHistory } = await import('../../observe/history.js');
    const { approveCommandFor, historyCommandFor, ledgerBeside } = await import('../../port/queue-address.js');
    const ledger = args.ledger === undefined ? undefined : existingFile(args.ledger, '--ledger');
    const queue = await observedQueue(args);
    try {
      const history = await jobHistory(queue, args.job, ledger);
      if (!history) throw new UsageError(`no job ${args.job} in ${args.store}`);
      const address = queueAddress(args);
      // Without the ledger the timeline has no effects: said, with the command that shows them, so none is never read as "none happened".
      const beside = ledger === undefined ? ledgerBeside(address) : null;
      const leftOut =
        ledger !== undefined
          ? undefined
          : beside !== null
            ? `effects in the world: left out (no --ledger); to include them: ${historyCommandFor(address, args.job, beside)}`
            : "effects in the world: left out (no --ledger); give the world's ledger with --ledger FILE (a drill's is ledger.db in its run directory)";
      const approve = history.job.outcome === 'awaiting_approval' ? approveCommandFor(address, args.job) : undefined;
      const notes = { ...(approve ? { approve } : {}), ...(leftOut ? { leftOut } : {}) };
      process.stdout.write(`${args.json ? JSON.stringify({ ...history, ...notes }, null, 2) : renderHistory(history, notes)}\n`);
    } finally {
      await queue.close();
    }
  },
});
