import { defineCommand } from '../command.js';

/** `queue-drill merge DIR...`: the reports of a drill's shards (run --shard i/n) joined into the one report a single run would give. */
export const mergeCommand = defineCommand({
  name: 'merge',
  describe: "join the reports of a drill's shards (run --shard i/n, one run directory each) into the report one run of the whole drill would give",
  positional: ['dirs'],
  variadic: true,
  options: {
    dirs: { type: 'string', demandOption: true, describe: "each shard's run directory (or its report.json), every share of the drill once" },
    out: { type: 'string', default: 'drill-runs', describe: 'where the merged run directory is made (OUT/<UTC time>/, and OUT/latest)' },
    baseline: {
      type: 'string',
      describe:
        "an earlier run to compare the whole drill with (its report.json, its run directory, or the runs' directory holding latest): " +
        'a regression fails the merge',
    },
    'recovery-ratio': {
      type: 'number',
      default: 1.5,
      describe: 'with --baseline: a recovery this many times slower than the baseline’s (and --recovery-slack-ms longer) regresses',
    },
    'recovery-slack-ms': {
      type: 'number',
      default: 500,
      describe: 'with --baseline: a recovery this much longer than the baseline’s (and --recovery-ratio times) regresses',
    },
    json: { type: 'boolean', default: false, describe: 'print the merged report.json to stdout instead of the summary' },
  },
  async run(args) {
    const { UsageError } = await import('../../kernel/errors.js');
    const { mergeShards } = await import('../../report/merge-shards.js');
    const { redactCommandLine } = await import('../../kernel/redact-command-line.js');
    const { readBaseline } = await import('../../report/baseline.js');
    const { progressPrinter, scenarioLine } = await import('../progress.js');
    // yargs gives a variadic positional as a list of words.
    const given: unknown = args.dirs;
    const inputs = (Array.isArray(given) ? given : [given]).map(String).filter(Boolean);
    if (inputs.length === 0) throw new UsageError("merge needs each shard's run directory (or report.json): queue-drill merge DIR...");
    if (!(args['recovery-ratio'] >= 1)) throw new UsageError(`--recovery-ratio must be 1 or more, got ${args['recovery-ratio']}`);
    if (!(args['recovery-slack-ms'] >= 0)) throw new UsageError(`--recovery-slack-ms must be 0 or more, got ${args['recovery-slack-ms']}`);
    const baseline =
      args.baseline === undefined
        ? undefined
        : { baseline: readBaseline(args.baseline), tolerance: { ratio: args['recovery-ratio'], slackMs: args['recovery-slack-ms'] } };
    const { report, written, withoutArtefacts } = mergeShards({
      inputs,
      out: args.out,
      ...(baseline === undefined ? {} : { baseline }),
      // As it may be kept in a report: the secrets it holds redacted, as run's are.
      command: redactCommandLine(['queue-drill', ...process.argv.slice(2)].join(' ')),
    });
    if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      // The lines one run of the whole drill prints, in the drill's order.
      const total = report.scenarios.length;
      for (const [index, scenario] of report.scenarios.entries()) process.stderr.write(`${scenarioLine(scenario, index + 1, total)}\n`);
      if (withoutArtefacts.length > 0)
        process.stderr.write(
          `no directory beside its shard's report, so its artefacts stay where the shard wrote them: ${withoutArtefacts.join(', ')}\n`,
        );
      progressPrinter(process.stderr, { live: false }).summary(report, written);
    }
    // In a GitHub Actions job the merged summary goes on the run's page, as run's does.
    const { appendStepSummary } = await import('../../report/step-summary.js');
    appendStepSummary(process.env, report, written.html, (line) =>
      process.stderr.write(`${line}
`),
    );
    process.exitCode = report.exitCode;
  },
});
