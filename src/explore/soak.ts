import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { WorldHost } from '../drill/runner/world-host.js';
import { makeOutDir } from '../report/out-dir.js';
import type { ScenarioReport } from '../report/schema.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import { type ExploreScope, exploreScope, NO_NETWORK } from './action-scope.js';
import { coverSchedules } from './cover.js';
import { broken, EXPLORED_NAME, replayOfFile, runSchedule } from './explore.js';
import { type Schedule, scheduleArbitrary } from './schedule.js';
import { exploreFile, scheduleScenario } from './to-scenario.js';

/*
 * Soak: a queue that must pass runs N random fault schedules (explore's
 * generator, drawn from one seed), and every violation is a defect: kept with
 * its run directory and written out as a scenario file with the command that
 * replays it. Unlike explore it does not stop at the first violation or shrink
 * it: it measures how often the judge cries wolf (it must be never) and finds
 * every flaky corner of the harness and the queue, not just one.
 */

export interface SoakOptions {
  /** The queue as its user named it (the replay commands say it so). */
  queue: string;
  /** That queue, resolved once by the caller: the drill runs it as this object. */
  adapter: QueueUnderDrill;
  runs: number;
  seed: number;
  /** Runs side by side. @default 2 */
  parallel: number;
  out: string;
  /** Stop cleanly after this long, keeping what was found. */
  timeBudgetMs: number;
  signal: AbortSignal;
  onRun?: (event: { run: number; report: ScenarioReport; broken: string[] }) => void;
}

/** One run that broke something: a defect, with what it needs to be replayed. */
export interface SoakViolation {
  run: number;
  seed: number;
  broken: string[];
  faults: number;
  file: string;
  runDir: string;
  replay: string;
}

export interface SoakResult {
  queue: string;
  seed: number;
  /** Runs asked for, and run. */
  asked: number;
  runs: number;
  violations: SoakViolation[];
  durationMs: number;
  interrupted: boolean;
  out: string;
}

/**
 * The schedules of a soak, the same list every time for one seed: explore's
 * cover first (every fault action at every point, for every kind of effect),
 * then fast-check's draws from the seed; `scope`: the point actions the queue gets (action-scope.ts).
 */
export function soakSchedules(seed: number, runs: number, scope: ExploreScope = NO_NETWORK): Schedule[] {
  const cover = coverSchedules(seed, scope).slice(0, runs);
  const drawn = runs > cover.length ? fc.sample(scheduleArbitrary(scope), { seed, numRuns: runs - cover.length }) : [];
  return [...cover, ...drawn];
}

/** Runs the soak; resolves with every violation found. Never throws for a violation. */
export async function soak(options: SoakOptions): Promise<SoakResult> {
  const started = Date.now();
  makeOutDir(options.out);
  const schedules = soakSchedules(options.seed, options.runs, exploreScope(options.adapter));
  const violations: SoakViolation[] = [];
  let next = 0;
  let runs = 0;
  const outOfTime = () => options.signal.aborted || Date.now() - started >= options.timeBudgetMs;
  // One process serves every run's world, stopped with the soak.
  const worlds = new WorldHost(options.out, true);
  const lane = async (): Promise<void> => {
    while (next < schedules.length && !outOfTime()) {
      const index = next++;
      const run = index + 1;
      // Each run its own drill seed, so two runs of one schedule shape still differ in timing draws.
      const seed = options.seed + index;
      const runDir = join(options.out, `run${run}`);
      const report = await runSchedule(schedules[index]!, { ...options, worlds }, runDir, seed);
      if (options.signal.aborted) break;
      runs++;
      const found = broken(report);
      options.onRun?.({ run, report, broken: found });
      if (found.length === 0) {
        rmSync(runDir, { recursive: true, force: true });
        continue;
      }
      // The judged scenario beside the run's logs: what broke, its evidence and its timeline, to find the cause.
      writeFileSync(join(runDir, 'scenario-report.json'), `${JSON.stringify(report, null, 2)}\n`);
      violations.push(writeViolation(options, schedules[index]!, { run, seed, broken: found, runDir }, report));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel, options.runs)) }, () => lane()));
  } finally {
    await worlds.stop();
  }
  violations.sort((a, b) => a.run - b.run);
  const result: SoakResult = {
    queue: options.queue,
    seed: options.seed,
    asked: options.runs,
    runs,
    violations,
    durationMs: Date.now() - started,
    interrupted: runs < options.runs,
    out: options.out,
  };
  writeFileSync(join(options.out, 'soak.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** Writes a violation's schedule as a scenario file beside its run directory. */
function writeViolation(
  options: SoakOptions,
  schedule: Schedule,
  found: { run: number; seed: number; broken: string[]; runDir: string },
  report: ScenarioReport,
): SoakViolation {
  const file = join(options.out, `violation-run${found.run}.yaml`);
  const replay = replayOfFile(file, found.seed, options.queue, report);
  const scenario = scheduleScenario(schedule, EXPLORED_NAME, `run ${found.run} of a soak of ${options.queue} (seed ${options.seed})`);
  writeFileSync(file, `# Replay: ${replay}\n# Broke: ${found.broken.join(', ')}\n${stringify(exploreFile([scenario]))}`);
  return { ...found, faults: schedule.faults.length, file, replay };
}
