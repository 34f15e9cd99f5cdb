import { readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { pathForUser, printedCommand } from '../kernel/printed-command.js';
import { makeOutDir } from '../report/out-dir.js';
import type { ScenarioReport } from '../report/schema.js';
import { brokenInvariants } from '../scenarios/reproduction.js';
import { resolveScenarios } from '../scenarios/resolve.js';
import { runJudged } from '../scenarios/run-judged.js';
import { WorldHost } from '../scenarios/runner/world-host.js';
import { ScenarioFileSchema } from '../scenarios/schema.js';
import { exploreLanes, type Lane } from './lanes.js';
import { type Schedule, scheduleArbitrary } from './schedule.js';
import { exploreFile, scheduleScenario } from './to-scenario.js';

export interface ExploreOptions {
  queue: string;
  runs: number;
  seed: number;
  timeBudgetMs: number;
  /** Independent lanes, each its own fast-check run with its own seed. @default 2 */
  parallel: number;
  out: string;
  signal: AbortSignal;
  onRun?: (event: { lane: number; run: number; report: ScenarioReport; shrinking: boolean }) => void;
}

/** A violation explore found, shrunk, and wrote out as a scenario file `queue-drill run` replays. */
export interface Counterexample {
  lane: number;
  seed: number;
  schedule: Schedule;
  faults: number;
  file: string;
  replay: string;
  broken: string[];
  shrinks: number;
}

export interface ExploreResult {
  runs: number;
  /** Runs (not counting shrinking) in which an armed fault never fired: they tested less than their schedule says. */
  vacuous: number;
  counterexamples: Counterexample[];
  interrupted: boolean;
  durationMs: number;
  /** The folder holding what was written (counterexamples, the runs kept); null when nothing was, and no folder is left behind. */
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
  options: Pick<ExploreOptions, 'queue' | 'signal'> & { worlds?: WorldHost },
  dir: string,
  seed: number,
): Promise<ScenarioReport> {
  const file = ScenarioFileSchema.parse(exploreFile([scheduleScenario(schedule, EXPLORED_NAME, 'explored schedule')]));
  const [scenario] = resolveScenarios(file, { seed, queue: options.queue });
  const worlds = options.worlds ? { worlds: options.worlds } : {};
  return runJudged(scenario!, dir, options.signal, { servers: {}, keep: false, ...worlds }, { repeat: 1, replay: '' });
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
 * smallest schedule that still fails is written as a scenario file with the
 * command that replays it. Lanes run side by side (both cores); the time budget
 * stops every lane cleanly, keeping what was found.
 */
export async function explore(options: ExploreOptions): Promise<ExploreResult> {
  const started = Date.now();
  // Made now, since each run works in a folder of it; removed at the end if a clean explore left nothing in it.
  const made = makeOutDir(options.out);
  let total = 0;
  let vacuous = 0;
  const counterexamples: Counterexample[] = [];
  // One process serves every run's world, stopped with the explore.
  const worlds = new WorldHost(options.out, true);
  const runOptions = { ...options, worlds };
  const lane = async ({ index, seed, numRuns, examples }: Lane): Promise<void> => {
    let n = 0;
    let failing = false;
    const property = fc.asyncProperty(scheduleArbitrary(), async (schedule) => {
      if (options.signal.aborted) return true;
      n++;
      if (!failing) total++;
      const dir = join(options.out, `lane${index + 1}-run${n}`);
      const report = await runSchedule(schedule, runOptions, dir, seed);
      options.onRun?.({ lane: index + 1, run: n, report, shrinking: failing });
      if (!failing && report.unfired.length > 0) vacuous++;
      const found = broken(report);
      if (found.length === 0) {
        rmSync(dir, { recursive: true, force: true });
        return true;
      }
      failing = true;
      return false;
    });
    const details = await fc.check(property, {
      seed,
      numRuns,
      // The covering schedules first (src/explore/cover.ts), then fast-check's own draws.
      examples,
      interruptAfterTimeLimit: Math.max(1, options.timeBudgetMs - (Date.now() - started)),
      markInterruptAsFailure: false,
      endOnFailure: false,
    });
    if (!details.failed || !details.counterexample) return;
    const [schedule] = details.counterexample;
    const file = join(options.out, `counterexample-lane${index + 1}.yaml`);
    const scenario = scheduleScenario(
      schedule,
      EXPLORED_NAME,
      `found by queue-drill explore (seed ${seed}, lane ${index + 1}) and shrunk to ${schedule.faults.length} fault(s)`,
    );
    // Judge the shrunk schedule once more, as its replay will: what it breaks is what the replay must reproduce.
    const report = await runSchedule(schedule, runOptions, join(options.out, `counterexample-lane${index + 1}`), seed);
    const replay = replayOfFile(file, seed, options.queue, report);
    writeFileSync(file, `# Replay: ${replay}\n${stringify(exploreFile([scenario]))}`);
    counterexamples.push({
      lane: index + 1,
      seed,
      schedule,
      faults: schedule.faults.length,
      file,
      replay,
      broken: broken(report),
      shrinks: details.numShrinks,
    });
  };
  try {
    await Promise.all(exploreLanes(options.seed, options.runs, options.parallel).map(lane));
  } finally {
    await worlds.stop();
  }
  return {
    runs: total,
    vacuous,
    counterexamples,
    interrupted: options.signal.aborted || Date.now() - started >= options.timeBudgetMs,
    durationMs: Date.now() - started,
    out: removeIfEmpty(options.out, made) ? null : options.out,
  };
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
