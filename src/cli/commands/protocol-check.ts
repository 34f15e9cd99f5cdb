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
    'time-scale': {
      type: 'string',
      default: 'auto',
      describe:
        'wait this many times 5 s (0.1 to 100; never under 5 s) for each answer and delivery; ' +
        'auto: measure how busy this machine is before the first step and choose (1 on a quiet one)',
    },
    json: { type: 'boolean', default: false, describe: 'print JSON' },
  },
  async run(args) {
    const { runProtocolCheck, PROTOCOL_STEP_NAMES } = await import('../../contract/protocol/run-protocol-check.js');
    const { renderProtocolCheck, renderTimeScale } = await import('../../contract/protocol/render.js');
    const { checkTimeScale } = await import('../../contract/protocol/time-scale.js');
    const { calibrate } = await import('../../harness/calibrate.js');
    const { parseTimeScale } = await import('../../scenarios/time-scale.js');
    const { EXIT, UsageError } = await import('../../kernel/errors.js');
    const given = parseTimeScale('--time-scale', args['time-scale']);
    const command = args.command.startsWith('process:') ? args.command.slice('process:'.length) : args.command;
    const only = args.only
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = (only ?? []).filter((name) => !PROTOCOL_STEP_NAMES.includes(name));
    if (unknown.length > 0) throw new UsageError(`--only ${unknown.join(', ')}: no such step; the steps are: ${PROTOCOL_STEP_NAMES.join(', ')}`);
    // A command that does not split is bad input, said before the machine is measured (once, before the first child starts).
    const { assertRunnable, splitCommand } = await import('../../adapters/process/command-line.js');
    assertRunnable(splitCommand(command)[0]!);
    const timing = await checkTimeScale(given, calibrate);
    if (!args.json) process.stderr.write(`${renderTimeScale(timing)}\n`);
    const results = await runProtocolCheck(command, { only, timeScale: timing.scale });
    const json = { command, timeScale: timing.scale, calibration: timing.calibration, answerTimeoutMs: timing.answerTimeoutMs, results };
    process.stdout.write(`${args.json ? JSON.stringify(json, null, 2) : renderProtocolCheck(command, results)}\n`);
    process.exitCode = results.some((r) => r.status === 'fail') ? EXIT.violated : EXIT.ok;
  },
});
