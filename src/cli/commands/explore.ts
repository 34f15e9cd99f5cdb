import { join } from 'node:path';
import type { ParallelSetting } from '../../drill/drill-lanes.js';
import { UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { ADAPTER_FLAG, queueFromFlags } from '../queue-flag.js';
import { harnessStopOnSignals } from '../stop-signal.js';

/** "90s", "5m", "1500ms" or a plain number of seconds, in milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--time-budget ${JSON.stringify(text)}: expected a duration like 60s, 5m or 1500ms`);
  const value = Number(match[1]);
  return Math.round(match[2] === 'ms' ? value : match[2] === 'm' ? value * 60_000 : value * 1_000);
}

/** `queue-drill explore`: random fault schedules on real processes; violations shrunk to a replayable scenario. */
export const exploreCommand = defineCommand({
  name: 'explore',
  describe: 'generate fault schedules, run each on real processes, and shrink any violation to a minimal scenario file',
  options: {
    queue: { type: 'string', describe: 'the queue implementation (queue-drill queues lists them) [default: reference]' },
    adapter: ADAPTER_FLAG,
    runs: { type: 'number', default: 20, describe: 'how many schedules to try' },
    seed: { type: 'number', describe: 'the seed of the schedules [default: from the clock, and printed]' },
    'time-budget': { type: 'string', default: '60s', describe: 'stop cleanly after this long, keeping what was found' },
    parallel: {
      type: 'string',
      default: 'auto',
      describe: 'independent lanes run side by side (1 to 16), or auto: 3 a core (at most 6) where a quick measure finds this machine quiet, else 2',
    },
    out: { type: 'string', describe: 'where runs and counterexamples go [default: drill-runs/explore-<UTC time>]' },
    exhaustive: { type: 'boolean', default: false, describe: 'instead: every named stage × every fault action on one job, a deterministic matrix' },
  },
  async run(args) {
    const { drillLanes, lanesLine, MAX_AUTO_EXPLORE_LANES, parseParallel } = await import('../../drill/drill-lanes.js');
    const parallel = parseParallel(args.parallel);
    const queue = (await queueFromFlags(args)) ?? 'reference';
    if (args.exhaustive) return runExhaustive({ ...args, parallel, queue });
    const { explore } = await import('../../explore/explore.js');
    const { exploreExitCode, exploreSummary, runLine } = await import('../../explore/summary.js');
    const { queueImpl } = await import('../../queues/registry.js');
    const adapter = queueImpl(queue);
    if (!Number.isInteger(args.runs) || args.runs < 1) throw new UsageError(`--runs must be a whole number from 1, got ${args.runs}`);
    const seed = args.seed ?? Date.now() % 2_147_483_647;
    const out = args.out ?? join('drill-runs', `explore-${new Date().toISOString().replace(/:/g, '-')}`);
    const budget = parseDuration(args['time-budget']);
    // As a drill chooses its lanes (src/drill/drill-lanes.ts): the lanes also split the schedules, so the line says how many.
    const calibration = parallel === 'auto' ? await (await import('../../harness/calibrate.js')).calibrate() : null;
    const chosen = drillLanes(parallel, calibration, { most: MAX_AUTO_EXPLORE_LANES });
    // No more lanes than runs (explore makes no empty lane): the line says the lanes that run.
    const lanes = { ...chosen, count: Math.min(chosen.count, args.runs) };
    process.stderr.write(`explore: ${args.runs} schedules on ${queue}, seed ${seed}, budget ${budget} ms, ${lanesLine(lanes, 'lane')}\n`);
    const stop = harnessStopOnSignals();
    try {
      const result = await explore({
        queue,
        adapter,
        runs: args.runs,
        seed,
        timeBudgetMs: budget,
        parallel: lanes.count,
        out,
        signal: stop.signal,
        onRun: (event) => process.stderr.write(runLine(event)),
      });
      // The summary is the last thing explore prints: every run has ended (or been cut off, and said so) by now.
      process.stdout.write(exploreSummary(result, seed));
      process.exitCode = exploreExitCode(result, stop.signal.aborted);
    } finally {
      stop.dispose();
    }
  },
});

/** `explore --exhaustive`: writes the stage × action matrix as a scenarios file and runs it as a drill. */
async function runExhaustive(args: { queue: string; seed: number | undefined; parallel: ParallelSetting; out: string | undefined }): Promise<void> {
  const { writeFileSync } = await import('node:fs');
  const { makeOutDir } = await import('../../report/out-dir.js');
  const { stringify } = await import('yaml');
  const { exhaustiveFile } = await import('../../explore/exhaustive.js');
  const { runDrill } = await import('../../drill/run-drill.js');
  const { progressPrinter } = await import('../progress.js');
  const { toolVersion } = await import('../../kernel/version.js');
  const { printedCommand } = await import('../../kernel/printed-command.js');
  const out = args.out ?? join('drill-runs', `exhaustive-${new Date().toISOString().replace(/:/g, '-')}`);
  makeOutDir(out);
  const file = join(out, 'exhaustive.yaml');
  writeFileSync(file, `# Every named stage x every fault action, written by queue-drill explore --exhaustive.\n${stringify(exhaustiveFile())}`);
  process.stderr.write(`exhaustive matrix: ${file}\n`);
  const stop = harnessStopOnSignals();
  const printer = progressPrinter(process.stderr, { live: Boolean(process.stderr.isTTY) && !process.env.CI });
  try {
    const { report, written } = await runDrill({
      file,
      only: [],
      seed: args.seed ?? 1,
      repeat: 1,
      parallel: args.parallel,
      out,
      queue: args.queue,
      signal: stop.signal,
      command: printedCommand(process.argv.slice(2)),
      toolVersion: toolVersion(),
      onScenario: printer.onScenario,
    });
    printer.summary(report, written);
    process.exitCode = report.exitCode;
  } finally {
    stop.dispose();
  }
}
