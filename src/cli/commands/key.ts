import { UsageError } from '../../kernel/errors.js';
import { makeIdempotencyKeyFromJsonText } from '../../kernel/idempotency-key.js';
import { PythonJsonError } from '../../kernel/python-json.js';
import { defineCommand } from '../command.js';

/** `queue-drill key`: prints a job's idempotency key, byte for byte what the queue sketch's Python make_idempotency_key gives. */
export const keyCommand = defineCommand({
  name: 'key',
  describe: 'print the idempotency key a job with these fields gets (hex SHA-256 over repo, branch, action, payload, workflow version)',
  fast: true,
  options: {
    repo: { type: 'string', demandOption: true, describe: 'repository, trimmed and lowercased' },
    branch: { type: 'string', demandOption: true, describe: 'branch, trimmed' },
    action: { type: 'string', demandOption: true, describe: 'the action, as it is' },
    payload: { type: 'string', demandOption: true, describe: 'the payload as JSON text' },
    'workflow-version': { type: 'string', demandOption: true, describe: 'the workflow version, as it is' },
  },
  run(args) {
    let key: string;
    try {
      key = makeIdempotencyKeyFromJsonText({
        repo: args.repo,
        branch: args.branch,
        action: args.action,
        payloadJson: args.payload,
        workflowVersion: args['workflow-version'],
      });
    } catch (error) {
      // The payload is the one field parsed: name the flag, and where in it, never its text (it may hold a secret).
      if (error instanceof PythonJsonError) throw new UsageError(`--payload is not JSON: ${error.message}`, { cause: error });
      throw error;
    }
    process.stdout.write(`${key}\n`);
  },
});
