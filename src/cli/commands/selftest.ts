import { join } from 'node:path';
import { DEFAULT_PARALLEL, parallelOutOfRange } from '../../kernel/defaults.js';
import { EXIT, UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { queuesFromFlag } from '../queue-flag.js';
import { stopOnSignals } from '../stop-signal.js';

/** `queue-drill selftest`: every queue implementation through the drills; broken ones must be caught, the reference never flagged. */
export const selftestCommand = defineCommand({
  name: 'selftest',
  describe: 'run the drills against every broken variant and the reference queue: prove the judge catches them',
  options: {
    file: { type: 'string', default: 'scenarios.yaml', describe: 'the scenarios file every implementation is drilled with' },
    only: { type: 'string', describe: 'only these scenarios (comma-separated)' },
    queues: { type: 'string', describe: 'only these implementations (comma-separated; queue-drill queues lists them)' },
    'explore-runs': { type: 'number', default: 10, describe: 'explore runs for the reference and for variants the scenarios missed' },
    seed: { type: 'number', default: 1, describe: 'the seed every random choice comes from, the same for every implementation' },
    parallel: { type: 'number', default: DEFAULT_PARALLEL, describe: 'how many scenarios of one implementation run at once' },
    out: { type: 'string', describe: 'where runs go [default: drill-runs/selftest-<UTC time>]' },
    json: { type: 'boolean', default: false, describe: 'print the rows (one per implementation) as JSON instead of the table' },
  },
  async run(args) {
    const { selftest, renderSelftest } = await import('../../selftest/selftest.js');
    const { toolVersion } = await import('../../kernel/version.js');
    const { queueImpl } = await import('../../queues/registry.js');
    const list = (text: string | undefined) =>
      text
        ? text
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
    const parallelProblem = parallelOutOfRange(args.parallel);
    if (parallelProblem !== null) throw new UsageError(`--parallel ${parallelProblem}`);
    const queues = await queuesFromFlag(list(args.queues));
    for (const name of queues) {
      const impl = queueImpl(name);
      if (impl.soundness === 'observed')
        throw new UsageError(
          `${name} is a queue people run, drilled to show what it does: the self-test proves the judge ` +
            'on queues whose soundness is known; use queue-drill compare',
        );
    }
    const stop = stopOnSignals();
    try {
      const rows = await selftest({
        file: args.file,
        only: list(args.only),
        queues,
        exploreRuns: args['explore-runs'],
        seed: args.seed,
        parallel: args.parallel,
        out: args.out ?? join('drill-runs', `selftest-${new Date().toISOString().replace(/:/g, '-')}`),
        toolVersion: toolVersion(),
        signal: stop.signal,
        onRow: (row) => process.stderr.write(`${row.queue}: ${row.ok ? 'ok' : 'NOT OK'} (${(row.durationMs / 1000).toFixed(1)}s)\n`),
      });
      process.stdout.write(`${args.json ? JSON.stringify(rows, null, 2) : renderSelftest(rows)}\n`);
      process.exitCode = stop.signal.aborted ? EXIT.harnessFailed : rows.every((r) => r.ok) ? EXIT.ok : EXIT.violated;
    } finally {
      stop.dispose();
    }
  },
});
