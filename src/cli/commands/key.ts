import { makeIdempotencyKeyFromJsonText } from '../../kernel/idempotency-key.js';
import { defineCommand } from '../command.js';

/** `queue-drill key`: prints a job's idempotency key, byte for byte what the queue sketch's Python make_idempotency_key gives. */
export const keyCommand = defineCommand({
  name: 'key',
  describe: 'print the idempotency key a job with these fields gets (hex SHA-256 over repo, branch, action, payload, workflow version)',
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
