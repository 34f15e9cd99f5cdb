import { join } from 'node:path';
import { type Calibration, calibrate } from '../harness/calibrate.js';
import { abortCause } from '../judge/interrupted.js';
import { withDeadline } from '../kernel/deadline.js';
import { EXIT, HarnessError, UsageError } from '../kernel/errors.js';
import { pathForUser, printedCommand } from '../kernel/printed-command.js';
import type { InvariantId } from '../kernel/vocabulary.js';
import type { QueueAdapter, ServerSettings } from '../port/adapter.js';
import { type QueueOptionValue, resolveQueueOptions } from '../port/queue-options.js';
import { resolveServers } from '../port/servers.js';
import { canonicalQueueName } from '../queues/adapter-module.js';
import { loadQueue, type QueueImpl } from '../queues/registry.js';
import { type Baseline, compareWithBaseline, type RecoveryTolerance } from '../report/baseline.js';
import { makeOutDir } from '../report/out-dir.js';
import { writeProgressReport } from '../report/progress-report.js';
import { type DrillReport, type EarlierAttempt, REPORT_VERSION, type ScenarioReport, UNFINISHED } from '../report/schema.js';
import { runKey, runsOfShare, type Shard } from '../report/shard.js';
import { drillExitCode, summarize } from '../report/verdict.js';
import { runDirAt, type WrittenReport, writeReport } from '../report/write-report.js';
import { loadScenarioFile } from '../scenarios/load.js';
import { commandLineQueueOptions, type ResolvedScenario, resolveScenarios } from '../scenarios/resolve.js';
import type { ScenarioFile } from '../scenarios/schema.js';
import { type DrillLanes, drillLanes, LaneCount, lanesLine, type ParallelSetting } from './drill-lanes.js';
import { ExclusiveGate } from './exclusive-gate.js';
import { replayServerFlags } from './replay-servers.js';
import { withReproduction } from './reproduction.js';
import { restartsServer, runJudged } from './run-judged.js';
import { WorldHost } from './runner/world-host.js';

export interface DrillOptions {
  /** The scenarios file: read unless `loaded` is given; named in the report and in replay commands either way. */
  file: string;
  /** The file, already read and validated (the library's loadScenarios), so it is not read again. */
  loaded?: ScenarioFile;
  only: readonly string[];
  seed: number;
  repeat: number;
  /** How many scenarios run at once, or 'auto': more on a quiet machine (./drill-lanes.ts). */
  parallel: ParallelSetting;
  /** Where run directories go: OUT/<UTC time>/. */
  out: string;
  /** Run every scenario on this queue implementation instead of the file's. */
  queue?: string;
  /** Queue options from the command line (--queue-option), by queue: they win over the file's. */
  queueOptions?: Readonly<Record<string, Readonly<Record<string, QueueOptionValue>>>>;
  /**
   * Every duration of every scenario times this (--time-scale), or 'auto': measured on this machine before the first
   * scenario (src/harness/calibrate.ts). @default 1
   */
  timeScale?: number | 'auto';
  /** Run an inconclusive scenario again up to this many times, each at twice the scale of the one before (--retry-inconclusive). @default 0 */
  retryInconclusive?: number;
  /** Told the time scale chosen (with what the machine measured, for auto), then how many scenarios run at once, before the first scenario starts. */
  onTimeScale?: (line: string) => void;
  /** Servers a queue may need (--pg-url); the environment and the scenario fill in the rest. */
  servers?: ServerSettings;
  /** Keep each drill's queue (a PostgreSQL schema) after it instead of dropping it. */
  keep?: boolean;
  /** Let the restart_server fault restart the queue's server (--restart-servers). */
  restartServers?: boolean;
  /** The invariants the run being replayed broke (--expect-broken): each scenario's report says whether it broke the same. */
  expectBroken?: readonly InvariantId[];
  /** Run only this share of the scenario runs (--shard i/n): every n-th from the i-th, in the drill's order, the same on every machine. */
  shard?: Shard;
  /** An earlier run to compare with (--baseline): a regression against it fails the run. */
  baseline?: { baseline: Baseline; tolerance: RecoveryTolerance };
  signal: AbortSignal;
  /** The command line as the user typed it, for the report. */
  command: string;
  toolVersion: string;
  /** Called when a scenario starts and when it has its verdict. */
  onScenario?: (
    event: { phase: 'start'; name: string; index: number; total: number } | { phase: 'done'; report: ScenarioReport; index: number; total: number },
  ) => void;
}

/**
 * The command that runs exactly this scenario again, with the same seed, on the same queue and the same servers
 * (those the command line gave, each password left for the shell to fill in: ./replay-servers.ts), as a person
 * pastes it where they stand. The queue is named as the scenario names it, with the servers it needs (resolved once, by the drill).
 */
export function replayCommand(
  file: string,
  name: string,
  seed: number,
  queue: { name: string; needs?: QueueAdapter['needs'] },
  timeScale = 1,
  queueOptions: Readonly<Record<string, QueueOptionValue>> = {},
  servers: ServerSettings = {},
): string {
  const scale = timeScale === 1 ? [] : ['--time-scale', String(timeScale)];
  // The command line's options alone: the file's are in the file the replay reads.
  const given = Object.entries(queueOptions).flatMap(([key, value]) => ['--queue-option', `${key}=${String(value)}`]);
  const command = printedCommand(['run', pathForUser(file), '--only', name, '--seed', String(seed), '--queue', queue.name, ...scale, ...given]);
  // Already shell text (a password's reference must stay expandable), so not quoted again.
  return [command, ...replayServerFlags(servers, queue.needs ?? [])].join(' ');
}

/**
 * A whole drill: every selected scenario (times --repeat, each repetition with
 * the next seed) on real processes, judged, and written as one report in a new
 * run directory. Exit code: 0 all passed, 1 something broke or a fault never
 * fired, 3 the harness itself failed or was interrupted.
 */
export async function runDrill(options: DrillOptions): Promise<{ report: DrillReport; written: WrittenReport }> {
  const file = options.loaded ?? loadScenarioFile(options.file);
  // A user's adapter module is imported before anything resolves a scenario for it (its lease floor, its soundness).
  if (options.queue !== undefined) await loadQueue(options.queue);
  const asked = options.queue === undefined ? undefined : canonicalQueueName(options.queue);
  const resolveAll = (timeScale: number) =>
    Array.from({ length: options.repeat }, (_, r) =>
      resolveScenarios(file, { seed: options.seed + r, only: options.only, queue: asked, timeScale, queueOptions: options.queueOptions }),
    );
  const given = options.timeScale === 'auto' ? 1 : (options.timeScale ?? 1);
  // Resolve every repetition first, so bad input fails before any process starts (and before a calibration).
  let rounds = resolveAll(given);
  // Each queue the scenarios name, resolved once: the drill hands it down as an object, never by name again.
  const queues = new Map<string, QueueImpl>();
  // A queue whose server cannot be reached fails here, in one line, before any process starts.
  for (const name of new Set(rounds.flatMap((round) => round.map((s) => s.settings.queue)))) {
    const impl = await loadQueue(name);
    queues.set(name, impl);
    // Every option a scenario gives its queue is one the queue accepts, with a value it can take (bad input otherwise).
    for (const s of rounds[0]!.filter((s) => s.settings.queue === name)) resolveQueueOptions(name, impl.options, s.queueOptions ?? {});
    const scenario = rounds[0]!.find((s) => s.settings.queue === name)!;
    await impl.preflight?.(resolveServers(options.servers ?? {}, scenario.settings));
  }
  const calibration = options.timeScale === 'auto' ? await calibrate() : null;
  const timeScale = calibration?.scale ?? given;
  if (timeScale !== given) rounds = resolveAll(timeScale);
  options.onTimeScale?.(timeScaleLine(timeScale, calibration));
  const lanes = drillLanes(options.parallel, calibration);
  options.onTimeScale?.(lanesLine(lanes));
  const started = Date.now();
  const all = rounds.flatMap((round, r) => round.map((scenario) => ({ scenario, repeat: r + 1 })));
  const shard = options.shard;
  if (shard && shard.count > all.length)
    throw new UsageError(`--shard ${shard.index}/${shard.count}: the drill has ${all.length} scenario run(s), so at most ${all.length} shards`);
  // Round robin in the drill's order (src/report/shard.ts): the same split on every machine given the same command.
  const queue = shard ? runsOfShare(all, shard) : all;
  // The last of the input checked, before any process starts: a refused drill leaves no folder behind.
  makeOutDir(options.out);
  const runDir = runDirAt(options.out, started);
  const retry = (scenario: ResolvedScenario, scale: number) =>
    resolveScenarios(file, {
      seed: scenario.seed,
      only: [scenario.name],
      queue: options.queue,
      timeScale: scale,
      queueOptions: options.queueOptions,
    })[0]!;
  const results: Array<ScenarioReport | undefined> = new Array(queue.length);
  const halt: Halt = { why: null };
  const drill: DrillState = { options, started, timeScale, calibration, lanes, all, queue, results, halt };
  const reportNow = (finished: boolean) => drillReport(drill, finished);
  // Written as the drill goes (at its start, after each verdict, at a signal), so any end leaves what was judged.
  const progress = () => writeProgressReport(runDir, reportNow(false));
  progress();
  options.signal.addEventListener('abort', progress, { once: true });
  try {
    await runScenarios(queue, runDir, results, { ...options, lanes, queues, retry, halt, onJudged: progress });
  } finally {
    options.signal.removeEventListener('abort', progress);
  }
  const report = reportNow(true);
  return { report, written: writeReport(runDir, report) };
}

/** What a drill's report is made of, as it goes. */
interface DrillState {
  options: DrillOptions;
  started: number;
  timeScale: number;
  calibration: Calibration | null;
  /** How many scenarios ran at once (narrowed as the drill goes, for auto). */
  lanes: DrillLanes;
  /** Every scenario run of the whole drill, and this run's share of them (all of them without --shard). */
  all: ReadonlyArray<{ scenario: ResolvedScenario; repeat: number }>;
  queue: ReadonlyArray<{ scenario: ResolvedScenario; repeat: number }>;
  results: ReadonlyArray<ScenarioReport | undefined>;
  halt: Halt;
}

/** The drill's report: final once `finished`, else unfinished (written while it runs: src/report/progress-report.ts). */
function drillReport(drill: DrillState, finished: boolean): DrillReport {
  const { options, results, halt } = drill;
  const shard = options.shard;
  const scenarios = results.filter((r): r is ScenarioReport => r !== undefined);
  const interrupted = options.signal.aborted || halt.why !== null;
  const by = halt.why ?? abortCause(options.signal);
  // What an interruption left undone is part of what the drill found: each run never started, by name.
  const notStarted = drill.queue
    .filter((_, index) => results[index] === undefined)
    .map(({ scenario, repeat }) => ({ name: scenario.name, repeat, queue: scenario.settings.queue }));
  const summary = summarize(scenarios, notStarted.length);
  const compared = options.baseline ? compareWithBaseline(options.baseline.baseline, scenarios, options.baseline.tolerance, options.only) : undefined;
  const regressed = (compared?.regressions.length ?? 0) > 0;
  const now = Date.now();
  return {
    version: REPORT_VERSION,
    tool: 'queue-drill',
    toolVersion: options.toolVersion,
    command: options.command,
    file: options.file,
    queue: options.queue ?? 'as each scenario says',
    seed: options.seed,
    timeScale: drill.timeScale,
    calibration: drill.calibration,
    lanes: { ...drill.lanes },
    startedAt: new Date(drill.started).toISOString(),
    finishedAt: new Date(now).toISOString(),
    durationMs: now - drill.started,
    exitCode: finished ? drillExitCode(summary, { interrupted, regressed }) : EXIT.harnessFailed,
    summary,
    scenarios,
    interruption: finished ? (interrupted ? { by, notStarted } : null) : { by: interrupted ? by : UNFINISHED, notStarted, unfinished: true },
    ...(compared && finished ? { baseline: compared } : {}),
    ...(shard ? { shard: { ...shard, order: drill.all.map(({ scenario, repeat }) => runKey({ name: scenario.name, repeat })) } } : {}),
  };
}

/** The first line a drill prints: the scale every duration runs at, and for auto, what the machine measured. */
export function timeScaleLine(scale: number, calibration: Calibration | null): string {
  if (calibration === null) return `time scale ×${scale} (given)`;
  const measured = `a process starts in ${calibration.startupMs} ms here now, a timer fires ${calibration.timerLatenessMs} ms late`;
  return `time scale ×${scale} (auto: ${measured}${scale === 1 ? '' : `; every lease, timeout and delay stretched ×${scale}`})`;
}

/** The queue a scenario runs on, as the drill resolved it once. */
function queueOf(queues: ReadonlyMap<string, QueueImpl>, scenario: ResolvedScenario): QueueImpl {
  const impl = queues.get(scenario.settings.queue);
  // Every scenario the drill runs was resolved before it started, its queue with it: a miss is a bug here.
  if (!impl)
    throw new HarnessError('QD_QUEUE_NOT_RESOLVED', `the drill did not resolve queue ${scenario.settings.queue} of scenario ${scenario.name}`);
  return impl;
}

/** The scenario runs, a few at a time; each one's report into `results`, in the drill's order (none for a run an interruption left unstarted). */
async function runScenarios(
  queue: ReadonlyArray<{ scenario: ResolvedScenario; repeat: number }>,
  runDir: string,
  results: Array<ScenarioReport | undefined>,
  options: DrillOptions & {
    lanes: DrillLanes;
    queues: ReadonlyMap<string, QueueImpl>;
    retry: (scenario: ResolvedScenario, scale: number) => ResolvedScenario;
    halt: Halt;
    onJudged: () => void;
  },
): Promise<void> {
  const total = queue.length;
  let next = 0;
  let completed = 0;
  // One process serves every scenario's world (each its own ledger and port), stopped with the drill.
  const worlds = new WorldHost(runDir);
  const runOptions = { servers: options.servers ?? {}, keep: options.keep ?? false, restartServers: options.restartServers ?? false, worlds };
  // A few scenarios at a time (each is a handful of mostly idle processes
  // waiting out leases); reports keep the file's order whatever finishes first.
  // One that restarts the queue's server runs alone: it would cut every other drill's connections.
  const gate = new ExclusiveGate();
  const lanes = new LaneCount(options.lanes);
  const runOne = (scenario: ResolvedScenario, repeat: number, dir: string, earlier: EarlierAttempt[] = []) => {
    const alone = runOptions.restartServers && restartsServer(scenario);
    const drill = () => lanes.during(() => runRetried(scenario, dir, { ...options, runOptions, repeat, earlier }));
    return alone ? gate.exclusive(drill) : gate.shared(drill);
  };
  const lane = async (laneIndex: number): Promise<void> => {
    // A lane past the count (auto narrowed it) takes nothing more.
    while (lanes.takesMore(laneIndex) && next < queue.length && !options.signal.aborted && options.halt.why === null) {
      const index = next++;
      const { scenario, repeat } = queue[index]!;
      options.onScenario?.({ phase: 'start', name: scenario.name, index: index + 1, total });
      const dir = join(runDir, options.repeat > 1 ? `${scenario.name}.${repeat}` : scenario.name);
      const crowded = lanes.crowded();
      let report = await runOne(scenario, repeat, dir);
      // More lanes than the default starved it (auto on a quiet machine): back to the default, and this one again.
      if (report.verdict === 'inconclusive' && crowded && !options.signal.aborted) {
        await lanes.narrowAfter(scenario.name);
        report = await runOne(scenario, repeat, dir, [...(report.earlierAttempts ?? []), attemptOf(report)]);
      }
      results[index] = withReproduction(report, options.expectBroken);
      completed++;
      if (report.verdict === 'error') options.halt.why ??= await serverLost(scenario, queueOf(options.queues, scenario), options.servers ?? {});
      options.onJudged();
      options.onScenario?.({ phase: 'done', report: results[index]!, index: completed, total });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.lanes.count, queue.length)) }, (_, i) => lane(i)));
  } finally {
    await worlds.stop();
  }
}

/** A finished run as an earlier attempt of its scenario. */
function attemptOf(report: ScenarioReport): EarlierAttempt {
  return {
    timeScale: report.timeScale,
    verdict: report.verdict,
    runDir: report.runDir,
    durationMs: report.durationMs,
    inconclusive: report.inconclusive,
  };
}

/** Set when the drill must start nothing more: the queue's server is gone. */
interface Halt {
  why: string | null;
}

/** How long the queue's server may take to answer after a scenario ended in error, before the drill stops. */
const SERVER_CHECK_MS = 5_000;

/**
 * After a scenario ended in error: why the drill cannot go on (its queue's
 * server does not answer), or null when it can. The next scenarios would each
 * wait out the same lost server, for nothing.
 */
async function serverLost(scenario: ResolvedScenario, impl: QueueImpl, servers: ServerSettings): Promise<string | null> {
  if (!impl.preflight) return null;
  try {
    await withDeadline(impl.preflight(resolveServers(servers, scenario.settings)), SERVER_CHECK_MS, `${impl.name}'s server`);
    return null;
  } catch (error) {
    return `the loss of the queue's server (${error instanceof Error ? error.message : String(error)}) after ${scenario.name} ended in error`;
  }
}

/**
 * One scenario run, judged; with --retry-inconclusive, an inconclusive run
 * (the machine starved it) again at twice its scale, up to N times, each in a
 * folder of its own. The last run is the entry; the earlier ones are listed
 * in it, so no attempt is hidden.
 */
async function runRetried(
  first: ResolvedScenario,
  dir: string,
  options: DrillOptions & {
    queues: ReadonlyMap<string, QueueImpl>;
    retry: (scenario: ResolvedScenario, scale: number) => ResolvedScenario;
    runOptions: Parameters<typeof runJudged>[4];
    repeat: number;
    /** Runs of this scenario before this one (the drill narrowed its lanes after the last): they number the run directories on. */
    earlier: readonly EarlierAttempt[];
  },
): Promise<ScenarioReport> {
  const earlier = [...options.earlier];
  let scenario = first;
  for (let retries = 0; ; retries++) {
    const scale = scenario.timeScale ?? 1;
    const queue = scenario.settings.queue;
    const impl = queueOf(options.queues, scenario);
    const queueOptions = commandLineQueueOptions(options.queueOptions, queue);
    const replay = replayCommand(
      options.file,
      scenario.name,
      scenario.seed,
      { name: queue, needs: impl.needs },
      scale,
      queueOptions,
      options.servers,
    );
    const runDir = earlier.length === 0 ? dir : `${dir}.retry${earlier.length}`;
    const report = await runJudged(scenario, impl, runDir, options.signal, options.runOptions, { repeat: options.repeat, replay });
    const more = report.verdict === 'inconclusive' && retries < (options.retryInconclusive ?? 0) && !options.signal.aborted;
    if (!more) return earlier.length === 0 ? report : { ...report, earlierAttempts: earlier };
    earlier.push(attemptOf(report));
    scenario = options.retry(scenario, Math.min(100, scale * 2));
  }
}
