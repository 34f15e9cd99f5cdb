import { makeIdempotencyKeyFromJsonText } from '../../kernel/idempotency-key.js';
import { defineCommand } from '../command.js';

/** `queue-drill key`: prints seed 000's idempotency key, byte for byte what the Python function gives. */
export const keyCommand = defineCommand({
  name: 'key',
  describe: "print the idempotency key of seed 000's make_idempotency_key (hex SHA-256)",
  fast: true,
  options: {
    repo: { type: 'string', demandOption: true, describe: 'repository, trimmed and lowercased' },
    branch: { type: 'string', demandOption: true, describe: 'branch, trimmed' },
    action: { type: 'string', demandOption: true },
    payload: { type: 'string', demandOption: true, describe: 'the payload as JSON text' },
    'workflow-version': { type: 'string', demandOption: true },
  },
  run(args) {
    const key = makeIdempotencyKeyFromJsonText({
      repo: args.repo,
      branch: args.branch,
      action: args.action,
      payloadJson: args.payload,
      workflowVersion: args['workflow-version'],
    });
    process.stdout.write(`${key}\n`);
  },
});
