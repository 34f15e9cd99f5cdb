import { dirname } from 'node:path';
import { type DrillOptions, runDrill as runScenarios } from '../drill/run-drill.js';
import type { ExitCode } from '../kernel/errors.js';
import { printedCommand } from '../kernel/printed-command.js';
import { toolVersion } from '../kernel/version.js';
import type { InvariantId } from '../kernel/vocabulary.js';
import { DEFAULT_RECOVERY_TOLERANCE, readBaseline } from '../report/baseline.js';
import type { DrillReport, ScenarioReport } from '../report/schema.js';
import type { WrittenReport } from '../report/write-report.js';
import {
  drillParallelOption,
  drillTimeScaleOption,
  integerOption,
  invariantsOption,
  loadedQueueOption,
  namesOption,
  retryInconclusiveOption,
} from './check-options.js';
import type { LoadedScenarios } from './load-scenarios.js';
import { OptionsError } from './options-error.js';
import { scenariosSource } from './scenarios-source.js';

/** A drill as a test suite asks for it; every option has the default `queue-drill run` has. */
export interface RunDrillOptions {
  /** A scenarios file's path, or what loadScenarios returned (its selection and queue come with it). @default 'scenarios.yaml' */
  scenarios?: string | LoadedScenarios;
  /** Only these scenarios, by name. @default the loaded scenarios' selection, else every scenario of the file */
  only?: readonly string[];
  /** Run every scenario on this queue implementation instead of the file's. @default the loaded scenarios' queue, else each scenario's own */
  queue?: string;
  /**
   * Your own queue: the path of an ES module whose default export is a
   * QueueAdapter (`queue-drill/adapter` has its types), which every process of
   * the drill imports; the same as `queue: 'adapter:PATH'`. Not with `queue`.
   */
  adapter?: string;
  /** The queue's own options, as its users would set them (`{ job_key_mode: 'preserve_run_at' }`): checked against what it accepts. @default its defaults */
  queueOptions?: Readonly<Record<string, string | number | boolean>>;
  /** The seed every random choice comes from. @default 1 */
  seed?: number;
  /** Run each scenario this many times, with seeds seed, seed+1, …. @default 1 */
  repeat?: number;
  /**
   * How many scenarios run at once (1 to 16; 1 inside a busy test suite keeps leases from starving), or 'auto': 4 on a
   * machine the time scale's calibration found quiet, else 2, and 2 for the rest once a scenario is inconclusive. @default 'auto'
   */
  parallel?: number | 'auto';
  /** Where run directories are made: OUT/<UTC time>/, with OUT/latest pointing at the newest. @default 'drill-runs' */
  out?: string;
  /**
   * Stretch every duration of every scenario by this factor (0.1 to 100), or 'auto': measure how busy this machine is
   * before the first scenario and choose (1 on a quiet one; the report's `calibration` says what was measured). @default 'auto'
   */
  timeScale?: number | 'auto';
  /** Run a scenario the machine starved (inconclusive) again, up to this many times (0 to 5), each at twice the scale. @default 0 */
  retryInconclusive?: number;
  /** PostgreSQL for the queues that need it. @default QD_PG_URL, else the scenario's pg_url, else postgres://postgres@127.0.0.1:5432/postgres */
  pgUrl?: string;
  /** Redis for the queues that need it. @default QD_REDIS_URL, else the scenario's redis_url, else redis://127.0.0.1:6379 */
  redisUrl?: string;
  /** RabbitMQ for the queues that need it. @default QD_AMQP_URL, else the scenario's amqp_url, else amqp://guest:guest@127.0.0.1:5672 */
  amqpUrl?: string;
  /** NATS for the queues that need it. @default QD_NATS_URL, else the scenario's nats_url, else nats://127.0.0.1:4222 */
  natsUrl?: string;
  /** Keep each drill's queue (a PostgreSQL schema) instead of dropping it. @default false */
  keep?: boolean;
  /** Let the restart_server fault restart the queue's server for everyone on this machine. @default false */
  restartServers?: boolean;
  /** Replaying a failing run: the invariants it broke; each scenario's report says whether it broke the same. */
  expectBroken?: readonly InvariantId[];
  /** An earlier run to compare with (its report.json, its run directory, or the runs' directory holding latest): a regression fails the run. */
  baseline?: string;
  /** With baseline: a recovery this many times slower (and recoverySlackMs longer) regresses. @default 1.5 */
  recoveryRatio?: number;
  /** With baseline: a recovery this much longer (and recoveryRatio times slower) regresses. @default 500 */
  recoverySlackMs?: number;
  /** Stops the drill: the scenarios running are stopped, their processes killed, and the report says it was interrupted (exit code 3). */
  signal?: AbortSignal;
  /** Called when a scenario starts and when it has its verdict. */
  onScenario?: (event: ScenarioEvent) => void;
}

/** What onScenario is told: a scenario started, or has its verdict (`index` counts the scenarios done so far). */
export type ScenarioEvent =
  | { phase: 'start'; name: string; index: number; total: number }
  | { phase: 'done'; report: ScenarioReport; index: number; total: number };

/** A drill done: its report, where it was written, and the exit code the command line would end with. */
export interface DrillRun {
  /** The report (report.json's content): the summary, and each scenario's verdict, invariants, jobs, faults and replay command. */
  report: DrillReport;
  /** Every file written for a view, absolute, by view name: json (report.json), markdown (report.md), junit (junit.xml), html (report.html). */
  written: WrittenReport;
  /** The run directory, absolute: OUT/<UTC time>/. */
  runDir: string;
  /**
   * What `queue-drill run` would exit with: 0 every scenario passed, 1 something broke (or regressed), 3 the harness failed or was
   * interrupted, 4 nothing broke but the machine starved some scenario past judging (inconclusive).
   */
  exitCode: ExitCode;
}

/**
 * Runs a drill, as `queue-drill run` does: every selected scenario on real
 * child processes (this package's own CLI, wherever it is installed), judged,
 * and written as a report in a new run directory. A finding is not an
 * exception: it is the report's verdicts and `exitCode`. Bad input (a
 * scenarios file, an option) throws an InputError before any process starts.
 */
export async function runDrill(options: RunDrillOptions = {}): Promise<DrillRun> {
  const source = scenariosSource('runDrill', options.scenarios);
  const only = options.only === undefined ? [...source.names] : namesOption('runDrill', 'only', options.only);
  const queue = await loadedQueueOption('runDrill', options.queue ?? (options.adapter === undefined ? source.queue : undefined), options.adapter);
  const seed = integerOption('runDrill', 'seed', options.seed, 1);
  const repeat = integerOption('runDrill', 'repeat', options.repeat, 1, 1);
  const parallel = drillParallelOption('runDrill', options.parallel);
  const timeScale = drillTimeScaleOption('runDrill', options.timeScale);
  const retryInconclusive = retryInconclusiveOption('runDrill', options.retryInconclusive);
  const out = options.out ?? 'drill-runs';
  const expectBroken = invariantsOption('runDrill', 'expectBroken', options.expectBroken);
  const baseline = baselineOption(options);
  const { report, written } = await runScenarios({
    file: source.path,
    ...(source.loaded === undefined ? {} : { loaded: source.loaded }),
    only,
    seed,
    repeat,
    parallel,
    out,
    ...(queue === undefined ? {} : { queue }),
    // Given for the queue asked for, else for whichever queue each scenario names.
    ...(options.queueOptions === undefined ? {} : { queueOptions: { [queue ?? '*']: options.queueOptions } }),
    timeScale,
    retryInconclusive,
    servers: { pgUrl: options.pgUrl, redisUrl: options.redisUrl, amqpUrl: options.amqpUrl, natsUrl: options.natsUrl },
    keep: options.keep ?? false,
    restartServers: options.restartServers ?? false,
    ...(expectBroken === undefined ? {} : { expectBroken }),
    ...(baseline === undefined ? {} : { baseline }),
    signal: options.signal ?? new AbortController().signal,
    command: equivalentCommand({
      file: source.path,
      only,
      seed,
      repeat,
      parallel,
      out,
      queue,
      timeScale,
      retryInconclusive,
      expectBroken,
      baseline: options.baseline,
      queueOptions: options.queueOptions ?? {},
    }),
    toolVersion: toolVersion(),
    ...(options.onScenario === undefined ? {} : { onScenario: options.onScenario }),
  });
  return { report, written, runDir: dirname(written.json), exitCode: report.exitCode };
}

/** The baseline to compare with, read now (a missing or unreadable one is bad input before anything runs), and its tolerance. */
function baselineOption(options: RunDrillOptions): DrillOptions['baseline'] {
  const ratio = options.recoveryRatio ?? DEFAULT_RECOVERY_TOLERANCE.ratio;
  const slackMs = options.recoverySlackMs ?? DEFAULT_RECOVERY_TOLERANCE.slackMs;
  if (!(ratio >= 1)) throw new OptionsError(`runDrill: recoveryRatio must be 1 or more, got ${ratio}`);
  if (!(slackMs >= 0)) throw new OptionsError(`runDrill: recoverySlackMs must be 0 or more, got ${slackMs}`);
  return options.baseline === undefined ? undefined : { baseline: readBaseline(options.baseline), tolerance: { ratio, slackMs } };
}

/** The `queue-drill run` command line that runs the same drill, for the report (report.md shows it; a person can paste it). */
function equivalentCommand(o: {
  file: string;
  only: readonly string[];
  seed: number;
  repeat: number;
  parallel: number | 'auto';
  out: string;
  queue: string | undefined;
  timeScale: number | 'auto';
  retryInconclusive: number;
  expectBroken: readonly string[] | undefined;
  baseline: string | undefined;
  queueOptions: Readonly<Record<string, string | number | boolean>>;
}): string {
  const words = ['run', o.file];
  if (o.only.length > 0) words.push('--only', o.only.join(','));
  words.push('--seed', String(o.seed));
  if (o.repeat !== 1) words.push('--repeat', String(o.repeat));
  if (o.queue !== undefined) words.push('--queue', o.queue);
  for (const [key, value] of Object.entries(o.queueOptions)) words.push('--queue-option', `${key}=${String(value)}`);
  if (o.timeScale !== 'auto') words.push('--time-scale', String(o.timeScale));
  if (o.retryInconclusive !== 0) words.push('--retry-inconclusive', String(o.retryInconclusive));
  if (o.parallel !== 'auto') words.push('--parallel', String(o.parallel));
  words.push('--out', o.out);
  if (o.expectBroken !== undefined) words.push('--expect-broken', o.expectBroken.join(','));
  if (o.baseline !== undefined) words.push('--baseline', o.baseline);
  // The command line a person would type for the same drill, as every printed command is (src/kernel/printed-command.ts).
  return printedCommand(words);
}
