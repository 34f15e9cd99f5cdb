import type { CommandModule } from 'yargs';
import { makeIdempotencyKeyFromJsonText } from '../../queue/idempotency-key.js';

interface KeyArgs {
  repo: string;
  branch: string;
  action: string;
  payload: string;
  'workflow-version': string;
}

/** `queue-drill key`: prints seed 000's idempotency key, byte for byte what the Python function gives. */
export const keyCommand: CommandModule<object, KeyArgs> = {
  command: 'key',
  describe: "print the idempotency key of seed 000's make_idempotency_key (hex SHA-256)",
  builder: (y) =>
    y
      .option('repo', { type: 'string', demandOption: true, describe: 'repository, trimmed and lowercased' })
      .option('branch', { type: 'string', demandOption: true, describe: 'branch, trimmed' })
      .option('action', { type: 'string', demandOption: true })
      .option('payload', { type: 'string', demandOption: true, describe: 'the payload as JSON text' })
      .option('workflow-version', { type: 'string', demandOption: true }) as never,
  handler: (args) => {
    const key = makeIdempotencyKeyFromJsonText({
      repo: args.repo,
      branch: args.branch,
      action: args.action,
      payloadJson: args.payload,
      workflowVersion: args['workflow-version'],
    });
    process.stdout.write(`${key}\n`);
  },
};
