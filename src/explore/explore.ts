import { mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { brokenInvariants } from '../drill/reproduction.js';
import { runJudged } from '../drill/run-judged.js';
import { WorldHost } from '../drill/runner/world-host.js';
import { abortCause } from '../judge/interrupted.js';
import { pathForUser, printedCommand } from '../kernel/printed-command.js';
import { makeOutDir } from '../report/out-dir.js';
import type { ScenarioReport } from '../report/schema.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import { resolveScenarios } from '../scenarios/resolve.js';
import { ScenarioFileSchema } from '../scenarios/schema.js';
import { type ExploreScope, exploreScope } from './action-scope.js';
import { exploreLanes, type Lane } from './lanes.js';
import { type Schedule, scheduleArbitrary } from './schedule.js';
import { exploreFile, scheduleScenario } from './to-scenario.js';

export interface ExploreOptions {
  /** The queue as its user named it (the replay commands say it so). */
  queue: string;
  /** That queue, resolved once by the caller (the command line, the self-test): the drill runs it as this object. */
  adapter: QueueUnderDrill;
  runs: number;
  seed: number;
  timeBudgetMs: number;
  /** Independent lanes, each its own fast-check run with its own seed. @default 2 */
  parallel: number;
  out: string;
  signal: AbortSignal;
  onRun?: (event: ExploreRunEvent) => void;
  /** Runs one schedule (tests give their own). @default runSchedule: on real processes, judged */
  run?: typeof runSchedule;
}

/** One run of a lane as it ended: judged, or cut off (then judged not at all, counted nowhere, its folder not kept). */
export interface ExploreRunEvent {
  lane: number;
  run: number;
  report: ScenarioReport;
  shrinking: boolean;
  /** What cut the run off before it reached rest ("the time budget", a signal's name), or null: it ran to its end. */
  cutOff: string | null;
}

/** A violation explore found, shrunk, judged again as its replay will be, and wrote out as a scenario file `queue-drill run` replays. */
export interface Counterexample {
  lane: number;
  seed: number;
  schedule: Schedule;
  faults: number;
  file: string;
  replay: string;
  broken: string[];
  shrinks: number;
  /** The folder of the run whose verdict this is (the rerun; the catching run when a signal cut the rerun off), its scenario-report.json inside. */
  runDir: string;
}

/**
 * A catch that did not reproduce: a run of the schedule broke something, and
 * its rerun (as the replay will run it) broke nothing. Still a catch a person
 * must look at, so never counted clean; never a counterexample either, since
 * nothing shows the schedule breaks the queue. Both runs are kept.
 */
export interface FlakyFinding {
  lane: number;
  seed: number;
  schedule: Schedule;
  faults: number;
  shrinks: number;
  /** The schedule as a scenario file, to replay and see whether it breaks again. */
  file: string;
  /** The command that replays it, expecting what the catching run broke. */
  replay: string;
  /** The run that broke something: what it broke, and its folder (scenario-report.json inside). */
  caught: { broken: string[]; runDir: string };
  /** The rerun of the same schedule, which broke nothing: its folder and its verdict (pass, or inconclusive when starved). */
  rerun: { runDir: string; verdict: ScenarioReport['verdict'] };
}

export interface ExploreResult {
  /** Runs judged to their end (not counting shrinking); runs cut off are not among them. */
  runs: number;
  /** Runs (not counting shrinking) in which an armed fault never fired: they tested less than their schedule says. */
  vacuous: number;
  /** Runs (not counting shrinking) the machine starved past judging (inconclusive): they could catch nothing. */
  inconclusive: number;
  /** Runs the time budget (or a signal) cut off before they reached rest: judged not at all, never counted as clean. */
  cutOff: number;
  counterexamples: Counterexample[];
  /** Catches whose rerun broke nothing (see FlakyFinding): each still fails the explore. */
  flaky: FlakyFinding[];
  interrupted: boolean;
  durationMs: number;
  /** The folder holding what was written (findings, their runs, explore.json); null when nothing was, and no folder is left behind. */
  out: string | null;
}

/**
 * The name of every explored scenario, in the run and in the file that
 * replays it alike: a job's key follows its scenario's name, and a fault's
 * draws follow the key, so a replay under another name would not be the run.
 */
export const EXPLORED_NAME = 'explored';

/** Runs one schedule on real processes and judges it by the invariants (expectations are 'any'). */
export async function runSchedule(
  schedule: Schedule,
  options: Pick<ExploreOptions, 'queue' | 'adapter' | 'signal'> & { worlds?: WorldHost },
  dir: string,
  seed: number,
): Promise<ScenarioReport> {
  const file = ScenarioFileSchema.parse(exploreFile([scheduleScenario(schedule, EXPLORED_NAME, 'explored schedule')]));
  const [scenario] = resolveScenarios(file, { seed, queue: options.queue });
  const worlds = options.worlds ? { worlds: options.worlds } : {};
  return runJudged(scenario!, options.adapter, dir, options.signal, { servers: {}, keep: false, ...worlds }, { repeat: 1, replay: '' });
}

/** The command that replays a scenarios file explore or soak wrote, naming what its run broke (--expect-broken), as a person pastes it. */
export function replayOfFile(file: string, seed: number, queue: string, report: ScenarioReport): string {
  const ids = brokenInvariants(report);
  return printedCommand([
    'run',
    pathForUser(file),
    '--seed',
    String(seed),
    '--queue',
    queue,
    ...(ids.length > 0 ? ['--expect-broken', ids.join(',')] : []),
  ]);
}

/**
 * Whether the run broke something: an invariant (not an unfired fault, not an 'any' job), or the harness failed.
 * A run the machine starved past judging (inconclusive) broke nothing anyone can replay: it is no counterexample.
 */
export function broken(report: ScenarioReport): string[] {
  if (report.verdict === 'inconclusive') return [];
  return [...report.invariants.filter((v) => v.status === 'broken').map((v) => v.id), ...(report.error ? [`harness: ${report.error}`] : [])];
}

/*
 * Explore: fast-check generates fault schedules (which points, which actions,
 * which attempts, how many jobs, workers and producers, which plans), after
 * the covering schedules that reach every action at every point for every
 * kind of effect (src/explore/cover.ts, split among lanes by lanes.ts); each runs
 * on real processes and is judged by the same invariants as `run`. A violation
 * is shrunk by fast-check (fewest faults first, then jobs and workers), and the
 * smallest schedule that still fails is run once more, as its replay will run
 * it: written as a scenario file with the command that replays it, as a
 * counterexample when the rerun breaks something, as a flaky finding when it
 * does not. Lanes run side by side (both cores); the time budget stops every
 * lane cleanly, keeping what was found: the runs in flight then are cut off
 * (stopped, judged not at all, counted nowhere) and waited for, so nothing of
 * a lane happens after explore resolves.
 */
export async function explore(options: ExploreOptions): Promise<ExploreResult> {
  const started = Date.now();
  // Made now, since each run works in a folder of it; removed at the end if a clean explore left nothing in it.
  const made = makeOutDir(options.out);
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(BUDGET_CAUSE), Math.max(0, options.timeBudgetMs));
  timer.unref();
  // One process serves every run's world, stopped with the explore.
  const worlds = new WorldHost(options.out, true);
  const exploring: Exploring = {
    options,
    scope: exploreScope(options.adapter),
    worlds,
    cut: AbortSignal.any([options.signal, budget.signal]),
    started,
    tally: { runs: 0, vacuous: 0, inconclusive: 0, cutOff: 0, interrupted: false },
    counterexamples: [],
    flaky: [],
  };
  try {
    await Promise.all(exploreLanes(options.seed, options.runs, options.parallel, exploring.scope).map((lane) => exploreLane(lane, exploring)));
  } finally {
    clearTimeout(timer);
    await worlds.stop();
  }
  const { tally, counterexamples, flaky } = exploring;
  const out = removeIfEmpty(options.out, made) ? null : options.out;
  const result: ExploreResult = {
    runs: tally.runs,
    vacuous: tally.vacuous,
    inconclusive: tally.inconclusive,
    cutOff: tally.cutOff,
    counterexamples,
    flaky,
    interrupted: options.signal.aborted || tally.interrupted || tally.cutOff > 0,
    durationMs: Date.now() - started,
    out,
  };
  // What was found, for a script: beside the findings it describes (a clean explore writes nothing).
  if (out !== null) writeFileSync(join(out, 'explore.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** What a run cut off by the budget says cut it: its report reads "interrupted by the time budget". */
const BUDGET_CAUSE = 'the time budget';

/** What explore's lanes share: the options, the world host, the signal that cuts runs off, and what was found. */
interface Exploring {
  options: ExploreOptions;
  /** The point actions the queue gets: network ones only where it reaches a server over the network. */
  scope: ExploreScope;
  worlds: WorldHost;
  /** Aborted by the time budget or the caller's signal: each run in flight stops, and is judged not at all. */
  cut: AbortSignal;
  started: number;
  /** interrupted: fast-check stopped a lane at the time budget. */
  tally: { runs: number; vacuous: number; inconclusive: number; cutOff: number; interrupted: boolean };
  counterexamples: Counterexample[];
  flaky: FlakyFinding[];
}

/** A run that broke something: the schedule, what it broke, its folder, and its report (written into the folder). */
interface Caught {
  schedule: Schedule;
  broken: string[];
  runDir: string;
  report: ScenarioReport;
}

/** One lane: its fast-check run (the cover's schedules, then draws, then shrinking), then its finding settled by a rerun. */
async function exploreLane({ index, seed, numRuns, examples }: Lane, exploring: Exploring): Promise<void> {
  const { options, tally } = exploring;
  const run = options.run ?? runSchedule;
  const lane = index + 1;
  let n = 0;
  // The last run that broke something: fast-check's counterexample is the last failure it saw (and shrinking goes on from it).
  const caught: { last: Caught | null } = { last: null };
  const runOne = async (schedule: Schedule): Promise<boolean> => {
    if (exploring.cut.aborted) return true;
    n++;
    const shrinking = caught.last !== null;
    const runDir = join(options.out, `lane${lane}-run${n}`);
    const report = await run(schedule, { ...options, worlds: exploring.worlds, signal: exploring.cut }, runDir, seed);
    if (exploring.cut.aborted) {
      // A half-run proves nothing either way: not clean, not a catch, not kept.
      tally.cutOff++;
      rmSync(runDir, { recursive: true, force: true });
      options.onRun?.({ lane, run: n, report, shrinking, cutOff: abortCause(exploring.cut) });
      return true;
    }
    if (!shrinking) tally.runs++;
    if (!shrinking && report.unfired.length > 0) tally.vacuous++;
    if (!shrinking && report.verdict === 'inconclusive') tally.inconclusive++;
    options.onRun?.({ lane, run: n, report, shrinking, cutOff: null });
    const found = broken(report);
    if (found.length === 0) {
      rmSync(runDir, { recursive: true, force: true });
      return true;
    }
    keepReport(runDir, report);
    caught.last = { schedule, broken: found, runDir, report };
    return false;
  };
  // fast-check stops waiting for a run at the time budget; the run itself is cut off then and ends soon after.
  let inFlight: Promise<boolean> = Promise.resolve(true);
  const property = fc.asyncProperty(scheduleArbitrary(exploring.scope), (schedule) => {
    inFlight = runOne(schedule);
    return inFlight;
  });
  const details = await fc.check(property, {
    seed,
    numRuns,
    // The covering schedules first (src/explore/cover.ts), then fast-check's own draws.
    examples,
    interruptAfterTimeLimit: Math.max(1, options.timeBudgetMs - (Date.now() - exploring.started)),
    markInterruptAsFailure: false,
    endOnFailure: false,
  });
  // Waited for, so that no run of this lane ends (and is told of) after explore has returned.
  await inFlight;
  if (details.interrupted) tally.interrupted = true;
  if (caught.last !== null) await settleFinding(exploring, { lane, seed, shrinks: details.numShrinks }, caught.last);
}

/**
 * Runs a lane's shrunk catch once more, as its replay will (on the caller's
 * signal alone: the budget does not cut the one run that decides what a catch
 * is), and records it: a counterexample when the rerun breaks something, a
 * flaky finding when it breaks nothing. A rerun a signal cut off proves nothing
 * either way: the catching run's verdict stands.
 */
async function settleFinding(exploring: Exploring, found: { lane: number; seed: number; shrinks: number }, caught: Caught): Promise<void> {
  const { options } = exploring;
  const { lane, seed, shrinks } = found;
  const { schedule } = caught;
  const rerunDir = join(options.out, `lane${lane}-rerun`);
  const rerun = await (options.run ?? runSchedule)(schedule, { ...options, worlds: exploring.worlds }, rerunDir, seed);
  keepReport(rerunDir, rerun);
  const again = broken(rerun);
  const faults = schedule.faults.length;
  if (again.length === 0 && !options.signal.aborted) {
    const file = join(options.out, `flaky-lane${lane}.yaml`);
    const replay = replayOfFile(file, seed, options.queue, caught.report);
    const description = `caught once by queue-drill explore (seed ${seed}, lane ${lane}, ${faults} fault(s)), and not on its rerun: flaky`;
    const why = `# Flaky: ${caught.runDir} broke ${caught.broken.join(', ')}; its rerun, ${rerunDir}, broke nothing (${rerun.verdict})\n`;
    writeFileSync(file, `# Replay: ${replay}\n${why}${stringify(exploreFile([scheduleScenario(schedule, EXPLORED_NAME, description)]))}`);
    exploring.flaky.push({
      lane,
      seed,
      schedule,
      faults,
      shrinks,
      file,
      replay,
      caught: { broken: caught.broken, runDir: caught.runDir },
      rerun: { runDir: rerunDir, verdict: rerun.verdict },
    });
    return;
  }
  const [report, runDir] = again.length > 0 ? [rerun, rerunDir] : [caught.report, caught.runDir];
  const file = join(options.out, `counterexample-lane${lane}.yaml`);
  const description = `found by queue-drill explore (seed ${seed}, lane ${lane}) and shrunk to ${faults} fault(s)`;
  const replay = replayOfFile(file, seed, options.queue, report);
  writeFileSync(file, `# Replay: ${replay}\n${stringify(exploreFile([scheduleScenario(schedule, EXPLORED_NAME, description)]))}`);
  exploring.counterexamples.push({ lane, seed, schedule, faults, file, replay, broken: broken(report), shrinks, runDir });
}

/** Keeps a judged run's report in its folder (scenario-report.json): what it broke, its evidence and its timeline. */
function keepReport(runDir: string, report: ScenarioReport): void {
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'scenario-report.json'), `${JSON.stringify(report, null, 2)}\n`);
}

/** Whether `out` holds nothing; if so, removes it and the empty folders above it that this explore made (up to `made`, what mkdir made). */
function removeIfEmpty(out: string, made: string | undefined): boolean {
  if (readdirSync(out).length > 0) return false;
  if (made === undefined) return true;
  const top = resolve(made);
  for (let dir = resolve(out); readdirSync(dir).length === 0; dir = dirname(dir)) {
    rmdirSync(dir);
    if (dir === top) break;
  }
  return true;
}
