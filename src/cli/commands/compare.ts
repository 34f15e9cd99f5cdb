import { DEFAULT_PARALLEL, parallelOutOfRange } from '../../kernel/defaults.js';
import { defineCommand } from '../command.js';
import { queuesFromFlag } from '../queue-flag.js';
import { harnessStopOnSignals } from '../stop-signal.js';

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `queue-drill compare`: the same scenarios, same seed, against several queues, as one matrix. */
export const compareCommand = defineCommand({
  name: 'compare',
  describe:
    'run the same scenarios (same seed) against several queues and write one matrix to OUT/<UTC time>/: ' +
    'compare.html (the matrix as one page), compare.md, compare.json (with compare.schema.json), junit.xml',
  positional: ['file'],
  options: {
    file: { type: 'string', default: 'scenarios.yaml', describe: 'the scenarios file' },
    queues: {
      type: 'string',
      demandOption: true,
      describe:
        'the queues to compare, comma-separated (e.g. sqlite,postgres,bullmq, or adapter:./my-adapter.js for your own; queue-drill queues lists them)',
    },
    only: { type: 'string', describe: 'only these scenarios (comma-separated names)' },
    'time-scale': { type: 'number', default: 1, describe: 'stretch every duration of every scenario by this factor, the same for every queue' },
    seed: { type: 'number', default: 1, describe: 'the seed every random choice comes from, the same for every queue' },
    repeat: {
      type: 'number',
      default: 1,
      describe:
        'run each cell this many times, with seeds SEED, SEED+1, ...; a cell whose judged runs disagree is flaky, ' +
        'with every run listed (a run the machine starved is not counted)',
    },
    'queue-option': {
      type: 'string',
      repeatable: true,
      describe:
        "one of a queue's own options: QUEUE:KEY=VALUE, or KEY=VALUE for every queue that accepts it; repeatable " +
        '(queue-drill queues lists what each accepts and its defaults)',
    },
    parallel: { type: 'number', default: DEFAULT_PARALLEL, describe: 'how many scenarios of one queue run at once (queues run one after another)' },
    out: { type: 'string', default: 'compare-runs', describe: 'where comparisons are made (OUT/<UTC time>/, and OUT/latest pointing at the newest)' },
    expect: {
      type: 'string',
      describe: "a YAML file of the verdicts expected per queue and scenario ('*' for the rest) [default: every cell passes]",
    },
    'pg-url': {
      type: 'string',
      describe: 'PostgreSQL for the queues that need it [default: QD_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres]',
    },
    'redis-url': { type: 'string', describe: 'Redis for the queues that need it [default: QD_REDIS_URL, else redis://127.0.0.1:6379]' },
    'amqp-url': { type: 'string', describe: 'RabbitMQ for --queue rabbitmq [default: QD_AMQP_URL, else amqp://guest:guest@127.0.0.1:5672]' },
    'nats-url': { type: 'string', describe: 'NATS for --queue nats-jetstream [default: QD_NATS_URL, else nats://127.0.0.1:4222]' },
    'restart-servers': {
      type: 'boolean',
      default: false,
      describe: "let the restart_server fault restart each queue's server (PostgreSQL, Redis) for everyone on this machine",
    },
    json: { type: 'boolean', default: false, describe: 'print compare.json to stdout instead of the summary' },
  },
  async run(args) {
    const { compareQueues } = await import('../../compare/compare-queues.js');
    const { queueImpl } = await import('../../queues/registry.js');
    const { serversFromFlags } = await import('../../port/servers.js');
    const { toolVersion } = await import('../../kernel/version.js');
    const { printedCommand } = await import('../../kernel/printed-command.js');
    const { UsageError } = await import('../../kernel/errors.js');
    const { scenarioLine } = await import('../progress.js');
    const queues = await queuesFromFlag(list(args.queues));
    if (queues.length === 0) throw new UsageError('--queues names no queue; give one or more, comma-separated');
    if (new Set(queues).size !== queues.length) throw new UsageError(`--queues names a queue twice: ${args.queues}`);
    const impls = queues.map((queue) => queueImpl(queue));
    if (!Number.isInteger(args.repeat) || args.repeat < 1 || args.repeat > 20)
      throw new UsageError(`--repeat must be from 1 to 20, got ${args.repeat}`);
    const { queueOptionFlags } = await import('../../port/queue-options.js');
    const queueOptions = queueOptionFlags(args['queue-option'], impls);
    const { isTimeScale } = await import('../../scenarios/time-scale.js');
    if (!isTimeScale(args['time-scale'])) throw new UsageError(`--time-scale must be from 0.1 to 100, got ${args['time-scale']}`);
    if (!Number.isInteger(args.seed)) throw new UsageError(`--seed must be an integer, got ${args.seed}`);
    const parallelProblem = parallelOutOfRange(args.parallel);
    if (parallelProblem !== null) throw new UsageError(`--parallel ${parallelProblem}`);
    const stop = harnessStopOnSignals();
    try {
      const { report, written } = await compareQueues({
        file: args.file,
        only: list(args.only),
        queues,
        seed: args.seed,
        repeat: args.repeat,
        queueOptions,
        timeScale: args['time-scale'],
        restartServers: args['restart-servers'],
        parallel: args.parallel,
        out: args.out,
        ...(args.expect === undefined ? {} : { expect: args.expect }),
        servers: serversFromFlags(args),
        signal: stop.signal,
        // As it may be kept in a report: the secrets it holds (a server's password, a process queue's token) redacted.
        command: (await import('../../kernel/redact-command-line.js')).redactCommandLine(printedCommand(process.argv.slice(2))),
        toolVersion: toolVersion(),
        onColumn: (event) => {
          if (event.phase === 'start') process.stderr.write(`\n${event.queue}:\n`);
          else if (event.column.error !== null) process.stderr.write(`  could not run: ${event.column.error}\n`);
          else process.stderr.write(`  ${event.column.queue}: ${(event.column.durationMs / 1000).toFixed(1)} s\n`);
        },
        onScenario: (_queue, report, index, total) => process.stderr.write(`  ${scenarioLine(report, index, total)}\n`),
      });
      if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const { cellsHeadline } = await import('../../compare/column-counts.js');
        const repeats = report.repeat > 1 ? `, each ${report.repeat} times` : '';
        process.stderr.write(
          `\n${report.scenarios.length} scenarios × ${report.queues.length} queues${repeats} in ${(report.durationMs / 1000).toFixed(1)} s ` +
            `(seed ${report.seed}): ${cellsHeadline(report.cells)}\n` +
            `comparison: ${Object.values(written).join('\n            ')}\n`,
        );
      }
      process.exitCode = report.exitCode;
    } finally {
      stop.dispose();
    }
  },
});
