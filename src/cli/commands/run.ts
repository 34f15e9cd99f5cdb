import { UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { parseInvariantList } from '../invariant-list.js';
import { ADAPTER_FLAG, queueFromFlags } from '../queue-flag.js';
import { harnessStopOnSignals } from '../stop-signal.js';

/** `--shard i/n`: share i (from 1) of n. */
function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) throw new UsageError(`--shard ${text}: expected i/n with 1 <= i <= n, e.g. 2/3`);
  return { index, count };
}

/** `queue-drill run`: the drill: every scenario on real processes, judged, and a recovery report. */
export const runCommand = defineCommand({
  name: 'run',
  describe:
    'run the scenarios of a scenarios.yaml on real processes and write the recovery report to OUT/<UTC time>/: ' +
    'report.html, report.md, report.json, junit.xml',
  positional: ['file'],
  options: {
    file: { type: 'string', default: 'scenarios.yaml', describe: 'the scenarios file' },
    only: { type: 'string', describe: 'run only these scenarios (comma-separated names)' },
    seed: { type: 'number', default: 1, describe: 'the seed every random choice comes from' },
    repeat: { type: 'number', default: 1, describe: 'run each scenario N times, seeds SEED, SEED+1, …' },
    parallel: {
      type: 'string',
      default: 'auto',
      describe:
        'how many scenarios run at once (1 to 16), or auto: 4 on a machine --time-scale auto measured quiet, else 2, and back to 2 ' +
        'for the rest of the drill (running that scenario again) once one comes out inconclusive',
    },
    out: { type: 'string', default: 'drill-runs', describe: 'where run directories are made (OUT/<UTC time>/)' },
    'time-scale': {
      type: 'string',
      default: 'auto',
      describe:
        'stretch every duration of every scenario (leases, timeouts, delays) by this factor (0.1 to 100), for queues that ' +
        'cannot run leases as short; auto: measure how busy this machine is before the first scenario and choose (1 on a quiet one)',
    },
    'retry-inconclusive': {
      type: 'number',
      default: 0,
      describe: 'run a scenario the machine starved (inconclusive) again, up to N times, each at twice the time scale; every attempt is reported',
    },
    queue: { type: 'string', describe: "the queue implementation for every scenario, instead of the file's (queue-drill queues lists them)" },
    adapter: ADAPTER_FLAG,
    'queue-option': {
      type: 'string',
      repeatable: true,
      describe:
        "one of the queue's own options, as its users would set it: [QUEUE:]KEY=VALUE, repeatable, winning over the file's queue_options " +
        '(queue-drill queues lists what each queue accepts and its defaults)',
    },
    'pg-url': {
      type: 'string',
      describe: "PostgreSQL for --queue postgres [default: QD_PG_URL, else the scenario's pg_url, else postgres://postgres@127.0.0.1:5432/postgres]",
    },
    'redis-url': {
      type: 'string',
      describe: "Redis for --queue bullmq [default: QD_REDIS_URL, else the scenario's redis_url, else redis://127.0.0.1:6379]",
    },
    'amqp-url': { type: 'string', describe: 'RabbitMQ for --queue rabbitmq [default: QD_AMQP_URL, else amqp://guest:guest@127.0.0.1:5672]' },
    'nats-url': { type: 'string', describe: 'NATS for --queue nats-jetstream [default: QD_NATS_URL, else nats://127.0.0.1:4222]' },
    'restart-servers': {
      type: 'boolean',
      default: false,
      describe: "let the restart_server fault restart the queue's server (PostgreSQL, Redis) for everyone on this machine",
    },
    'expect-broken': {
      type: 'string',
      describe:
        'replaying a failing run: the invariants it broke (comma-separated; its replay command gives them); the report says whether this run broke the same',
    },
    shard: {
      type: 'string',
      describe: 'run only share i of n of the scenario runs (i/n, e.g. 2/3): the same split on every machine; join them with merge',
    },
    baseline: {
      type: 'string',
      describe:
        "an earlier run to compare with (its report.json, its run directory, or the runs' directory holding latest): a regression fails the run",
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
    keep: { type: 'boolean', default: false, describe: "keep each drill's queue (a PostgreSQL schema) instead of dropping it after the run" },
    json: { type: 'boolean', default: false, describe: 'print report.json to stdout instead of the summary' },
  },
  async run(args) {
    const { runDrill } = await import('../../drill/run-drill.js');
    const { serversFromFlags } = await import('../../port/servers.js');
    const { progressPrinter } = await import('../progress.js');
    const { toolVersion } = await import('../../kernel/version.js');
    const { printedCommand } = await import('../../kernel/printed-command.js');
    const { UsageError } = await import('../../kernel/errors.js');
    if (!Number.isInteger(args.seed)) throw new UsageError(`--seed must be an integer, got ${args.seed}`);
    if (!Number.isInteger(args.repeat) || args.repeat < 1) throw new UsageError(`--repeat must be a whole number from 1, got ${args.repeat}`);
    const parallel = (await import('../../drill/drill-lanes.js')).parseParallel(args.parallel);
    const { parseTimeScale } = await import('../../scenarios/time-scale.js');
    const timeScale = parseTimeScale('--time-scale', args['time-scale']);
    const retries = args['retry-inconclusive'];
    if (!Number.isInteger(retries) || retries < 0 || retries > 5)
      throw new UsageError(`--retry-inconclusive must be a whole number from 0 to 5, got ${retries}`);
    const queue = await queueFromFlags(args);
    const queueOptions = await queueOptionsOfRun(args.file, queue, args['queue-option']);
    const expectBroken = args['expect-broken'] === undefined ? undefined : parseInvariantList('--expect-broken', args['expect-broken']);
    if (!(args['recovery-ratio'] >= 1)) throw new UsageError(`--recovery-ratio must be 1 or more, got ${args['recovery-ratio']}`);
    if (!(args['recovery-slack-ms'] >= 0)) throw new UsageError(`--recovery-slack-ms must be 0 or more, got ${args['recovery-slack-ms']}`);
    const shard = args.shard === undefined ? undefined : parseShard(args.shard);
    // A share compared alone would call every other share's scenario gone; the whole drill is compared once, when merged.
    if (shard && args.baseline !== undefined)
      throw new UsageError(`--baseline with --shard: give the baseline to merge instead (queue-drill merge DIR... --baseline ${args.baseline})`);
    const { readBaseline } = await import('../../report/baseline.js');
    const baseline =
      args.baseline === undefined
        ? undefined
        : { baseline: readBaseline(args.baseline), tolerance: { ratio: args['recovery-ratio'], slackMs: args['recovery-slack-ms'] } };
    const { redactScenarioCommands, reportWithoutSecrets } = await import('../../report/report-without-secrets.js');
    const stop = harnessStopOnSignals();
    const printer = progressPrinter(process.stderr, { live: Boolean(process.stderr.isTTY) && !process.env.CI });
    try {
      const { report, written } = await runDrill({
        file: args.file,
        only: args.only
          ? args.only
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [],
        seed: args.seed,
        repeat: args.repeat,
        parallel,
        out: args.out,
        ...(queue === undefined ? {} : { queue }),
        queueOptions,
        timeScale,
        retryInconclusive: retries,
        onTimeScale: (line) => process.stderr.write(`${line}\n`),
        restartServers: args['restart-servers'],
        servers: serversFromFlags(args),
        keep: args.keep,
        ...(expectBroken === undefined ? {} : { expectBroken }),
        ...(baseline === undefined ? {} : { baseline }),
        ...(shard === undefined ? {} : { shard }),
        signal: stop.signal,
        // As it may be kept in a report: the secrets it holds (a server's password, a process queue's token) redacted.
        command: (await import('../../kernel/redact-command-line.js')).redactCommandLine(printedCommand(process.argv.slice(2))),
        toolVersion: toolVersion(),
        // What is printed is what a CI log keeps: no command line's secret (a process queue's token) in its replay lines.
        onScenario: (event) => printer.onScenario(event.phase === 'done' ? { ...event, report: redactScenarioCommands(event.report) } : event),
      });
      const shown = reportWithoutSecrets(report);
      if (args.json) process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      else printer.summary(shown, written);
      // In a GitHub Actions job the summary goes on the run's page too.
      const { appendStepSummary } = await import('../../report/step-summary.js');
      appendStepSummary(process.env, shown, written.html, (line) => process.stderr.write(`${line}\n`));
      process.exitCode = report.exitCode;
    } finally {
      stop.dispose();
    }
  },
});

/** The --queue-option flags, by queue: for --queue, else for the queues the file's scenarios name. */
async function queueOptionsOfRun(file: string, queue: string | undefined, flags: readonly string[]): Promise<Record<string, Record<string, string>>> {
  if (flags.length === 0) return {};
  const { queueImpl } = await import('../../queues/registry.js');
  const { queueOptionFlags } = await import('../../port/queue-options.js');
  let names = queue === undefined ? [] : [queue];
  if (names.length === 0) {
    const { loadScenarioFile } = await import('../../scenarios/load.js');
    const { resolveScenarios } = await import('../../scenarios/resolve.js');
    names = [...new Set(resolveScenarios(loadScenarioFile(file), { seed: 1 }).map((s) => s.settings.queue))];
  }
  return queueOptionFlags(
    flags,
    names.map((name) => queueImpl(name)),
  );
}
