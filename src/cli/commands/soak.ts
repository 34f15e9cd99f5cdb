import { join } from 'node:path';
import { DEFAULT_PARALLEL, parallelOutOfRange } from '../../kernel/defaults.js';
import { EXIT, UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { ADAPTER_FLAG, queueFromFlags } from '../queue-flag.js';
import { harnessStopOnSignals } from '../stop-signal.js';
import { parseDuration } from './explore.js';

/** `queue-drill soak`: many random fault schedules on a queue that must pass; every violation is a defect, kept with its replay. */
export const soakCommand = defineCommand({
  name: 'soak',
  describe: 'run many random fault schedules on a queue that must pass, and report every violation with its replay file',
  options: {
    queue: { type: 'string', describe: 'the queue implementation (queue-drill queues lists them) [default: reference]' },
    adapter: ADAPTER_FLAG,
    runs: { type: 'number', default: 100, describe: 'how many schedules to run' },
    seed: { type: 'number', default: 1, describe: 'the seed of the schedules (run N uses drill seed seed + N - 1)' },
    parallel: { type: 'number', default: DEFAULT_PARALLEL, describe: 'runs side by side' },
    'time-budget': { type: 'string', default: '60m', describe: 'stop cleanly after this long, keeping what was found' },
    out: { type: 'string', describe: 'where runs and violations go [default: drill-runs/soak-<UTC time>]' },
    json: { type: 'boolean', default: false, describe: 'print the result (soak.json) on stdout' },
  },
  async run(args) {
    const { soak } = await import('../../explore/soak.js');
    const { queueImpl } = await import('../../queues/registry.js');
    const queue = (await queueFromFlags(args)) ?? 'reference';
    const adapter = queueImpl(queue);
    await adapter.preflight?.({});
    if (!Number.isInteger(args.runs) || args.runs < 1) throw new UsageError(`--runs must be a whole number from 1, got ${args.runs}`);
    const parallelProblem = parallelOutOfRange(args.parallel);
    if (parallelProblem !== null) throw new UsageError(`--parallel ${parallelProblem}`);
    const out = args.out ?? join('drill-runs', `soak-${new Date().toISOString().replace(/:/g, '-')}`);
    const budget = parseDuration(args['time-budget']);
    process.stderr.write(`soak: ${args.runs} schedules on ${queue}, seed ${args.seed}, ${args.parallel} side by side, runs in ${out}\n`);
    const stop = harnessStopOnSignals();
    try {
      const result = await soak({
        queue,
        adapter,
        runs: args.runs,
        seed: args.seed,
        parallel: args.parallel,
        out,
        timeBudgetMs: budget,
        signal: stop.signal,
        onRun: ({ run, report, broken }) => {
          if (broken.length > 0 || run % 50 === 0) {
            process.stderr.write(
              `run ${run}: ${broken.length > 0 ? `VIOLATION ${broken.join(', ')}` : 'ok'} (${(report.durationMs / 1000).toFixed(1)}s)\n`,
            );
          }
        },
      });
      if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else {
        for (const v of result.violations)
          process.stdout.write(`violation in run ${v.run}: ${v.broken.join(', ')}\n  ${v.file}\n  replay: ${v.replay}\n`);
        process.stdout.write(
          `soak: ${result.runs} of ${result.asked} run(s) on ${result.queue} in ${(result.durationMs / 1000).toFixed(1)}s, ` +
            `${result.violations.length} violation(s)${result.interrupted ? ' (stopped early by the time budget or a signal)' : ''}, seed ${result.seed}\n`,
        );
      }
      process.exitCode = stop.signal.aborted ? EXIT.harnessFailed : result.violations.length > 0 ? EXIT.violated : EXIT.ok;
    } finally {
      stop.dispose();
    }
  },
});
