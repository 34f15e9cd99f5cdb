import type { FaultActionName } from '../faults/actions/index.js';
import type { FailpointName } from '../faults/points.js';
import type { InvariantId } from '../kernel/vocabulary.js';
import type { Expectation } from '../report/schema.js';
import { loadScenarioFile } from '../scenarios/load.js';
import { type ResolvedScenario, resolveScenarios } from '../scenarios/resolve.js';
import { integerOption, namesOption, queueOption, timeScaleOption } from './check-options.js';
import { rememberFile } from './scenarios-source.js';

/*
 * The public face of a loaded scenarios file is plain data (ResolvedScenario
 * and the validated file reach into the world service's and the stores' types,
 * which a user's compiler would then need); the validated file itself stays
 * behind (./scenarios-source.ts), for runDrill and compare to run from without
 * reading the file again.
 */

/** Which scenarios of a file to load, and how to resolve them. */
export interface LoadScenariosOptions {
  /** Only these scenarios, by name (an unknown name is bad input). @default every scenario of the file */
  only?: readonly string[];
  /** Resolve every scenario for this queue implementation instead of the file's. @default each scenario's own */
  queue?: string;
  /** The seed the scenarios are resolved with (each scenario's own seed derives from it). @default 1 */
  seed?: number;
  /** Every duration of every scenario times this. @default 1 */
  timeScale?: number;
}

/** One scenario as resolved: defaults merged, names turned into keys, faults in the harness's terms. */
export interface ResolvedScenarioOutline {
  readonly name: string;
  readonly description: string;
  /** The queue implementation it runs on. */
  readonly queue: string;
  /** Its own seed (derived from the seed it was resolved with). */
  readonly seed: number;
  /** Its workers' ids. */
  readonly workers: readonly string[];
  /** Its jobs: each one's idempotency key, attempts allowed, and how it must end. */
  readonly jobs: ReadonlyArray<{ readonly key: string; readonly maxAttempts: number; readonly expect: Expectation }>;
  /** Its faults at named points in a process. */
  readonly faults: ReadonlyArray<{ readonly id: string; readonly at: FailpointName; readonly action: FaultActionName }>;
  /** Its faults in the world, as the report describes them. */
  readonly worldFaults: readonly string[];
  /** The invariants it is judged by. */
  readonly invariants: readonly InvariantId[];
}

/** A scenarios file read, validated and resolved; runDrill and compare take it in place of a path. */
export interface LoadedScenarios {
  /** The file's path, as given; reports and replay commands name it. */
  readonly path: string;
  /** The names of the scenarios selected (`only`, else all), in the file's order: what runDrill and compare run unless told otherwise. */
  readonly names: readonly string[];
  /** The queue every scenario was resolved for, when `queue` was given: runDrill uses it unless told otherwise. */
  readonly queue: string | undefined;
  /** Each selected scenario, resolved. */
  readonly scenarios: readonly ResolvedScenarioOutline[];
}

/**
 * Reads, validates and resolves a scenarios file. Bad input throws a typed
 * error before anything runs: ScenarioFileError (code QD_BAD_SCENARIOS) with
 * every problem's path, line and column in `issues` (a missing file too),
 * and an InputError (exit code 2) for an unknown scenario or queue name.
 */
export function loadScenarios(path: string, options: LoadScenariosOptions = {}): LoadedScenarios {
  const only = namesOption('loadScenarios', 'only', options.only);
  const queue = queueOption(options.queue);
  const seed = integerOption('loadScenarios', 'seed', options.seed, 1);
  const timeScale = timeScaleOption('loadScenarios', options.timeScale);
  const file = loadScenarioFile(path);
  const scenarios = resolveScenarios(file, { seed, only, queue, timeScale });
  const loaded: LoadedScenarios = Object.freeze({ path, names: scenarios.map((s) => s.name), queue, scenarios: scenarios.map(outline) });
  rememberFile(loaded, file);
  return loaded;
}

function outline(scenario: ResolvedScenario): ResolvedScenarioOutline {
  return {
    name: scenario.name,
    description: scenario.description,
    queue: scenario.settings.queue,
    seed: scenario.seed,
    workers: scenario.workers.map((w) => w.id),
    jobs: scenario.jobs.map((job) => ({ key: job.key, maxAttempts: job.maxAttempts, expect: job.expect })),
    faults: scenario.pointFaults.map((rule) => ({ id: rule.id, at: rule.point, action: rule.action })),
    worldFaults: scenario.worldFaults.map((fault) => fault.describe),
    invariants: scenario.invariants,
  };
}
