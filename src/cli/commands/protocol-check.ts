import { defineCommand } from '../command.js';

/** `queue-drill protocol-check CMD...`: the process protocol's conformance suite against a child command. */
export const protocolCheckCommand = defineCommand({
  name: 'protocol-check',
  describe: 'check a queue in any language against the process protocol (docs/protocol.md): PASS or FAIL per step, naming the message at fault',
  positional: ['command'],
  variadic: true,
  fast: true,
  options: {
    command: {
      type: 'string',
      demandOption: true,
      describe: 'the command that runs the child, e.g. python3 examples/python-queue/queue_drill_queue.py',
    },
    only: { type: 'string', describe: 'only these steps (comma-separated; hello always runs)' },
    json: { type: 'boolean', default: false, describe: 'print JSON' },
  },
  async run(args) {
    const { runProtocolCheck, PROTOCOL_STEP_NAMES } = await import('../../contract/protocol/run-protocol-check.js');
    const { renderProtocolCheck } = await import('../../contract/protocol/render.js');
    const { EXIT, UsageError } = await import('../../kernel/errors.js');
    const command = args.command.startsWith('process:') ? args.command.slice('process:'.length) : args.command;
    const only = args.only
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = (only ?? []).filter((name) => !PROTOCOL_STEP_NAMES.includes(name));
    if (unknown.length > 0) throw new UsageError(`--only ${unknown.join(', ')}: no such step; the steps are: ${PROTOCOL_STEP_NAMES.join(', ')}`);
    const results = await runProtocolCheck(command, only);
    process.stdout.write(`${args.json ? JSON.stringify({ command, results }, null, 2) : renderProtocolCheck(command, results)}\n`);
    process.exitCode = results.some((r) => r.status === 'fail') ? EXIT.violated : EXIT.ok;
  },
});
