import { systemClock } from '../../kernel/clock.js';
import { UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { stopOnSignals } from '../stop-signal.js';

/** `queue-drill world`: the world service on a ledger file, on 127.0.0.1, until SIGTERM. */
export const worldCommand = defineCommand({
  name: 'world',
  describe: 'run the world: the outside systems a job touches, with a ledger of every applied effect',
  fast: true,
  options: {
    ledger: { type: 'string', demandOption: true, describe: 'the SQLite ledger file of applied effects' },
    port: { type: 'number', default: 0, describe: 'the port on 127.0.0.1 (0: a free one, announced on stdout)' },
  },
  async run(args) {
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65_535) {
      throw new UsageError(`--port must be an integer from 0 to 65535, got ${args.port}`);
    }
    // Loaded here, not at the top: every other child imports this file through main.ts and need not load zod and the server.
    const { runWorld } = await import('../../world/run-world.js');
    const stop = stopOnSignals();
    try {
      await runWorld({ ledger: args.ledger, port: args.port, clock: systemClock(), signal: stop.signal });
    } finally {
      stop.dispose();
    }
  },
});
