import { argOf } from '../faults/action-fields.js';
import { POINT_FAULT_ACTIONS, pointFaultAction } from '../faults/actions/index.js';
import type { FaultRule, FaultWhere } from '../faults/fault-plan.js';
import { InputError } from '../kernel/errors.js';
import { makeIdempotencyKey } from '../kernel/idempotency-key.js';
import { fromJsValue } from '../kernel/python-json.js';
import { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';
import type { QueueOptionValue } from '../port/queue-options.js';
import { type QueueImpl, queueImpl } from '../queues/registry.js';
import type { Expectation } from '../report/schema.js';
import { type Plan, parsePlan, stepKey } from '../saga/plan.js';
import { WORLD_FAULT_ACTIONS, worldFaultAction } from '../world/fault-actions/index.js';
import type { FaultSpecInput } from '../world/faults.js';
import { namedPlan } from './plan-library.js';
import {
  BUILT_IN_DEFAULTS,
  type PointFault,
  type ScenarioFile,
  type ScenarioInput,
  type Settings,
  SettingsSchema,
  type WorldFault,
} from './schema.js';
import { scaleFault, scaleSettings } from './time-scale.js';

/** One job of a scenario, with everything decided: its key, its plan, its budget, how it must end. */
export interface ResolvedJob {
  /** 1-based, in the order the scenario lists them. */
  n: number;
  key: string;
  plan: Plan;
  maxAttempts: number;
  expect: Expectation;
}

/** A scenario with defaults merged, names resolved and faults in the harness's terms. */
export interface ResolvedScenario {
  name: string;
  description: string;
  covers: string | null;
  settings: Settings;
  seed: number;
  workers: Array<{ id: string; clockSkewMs: number }>;
  jobs: ResolvedJob[];
  pointFaults: FaultRule[];
  worldFaults: Array<{ spec: FaultSpecInput; describe: string }>;
  invariants: InvariantId[];
  secrets: string[];
  /** Every duration of it was multiplied by this (--time-scale, or a rerun of an inconclusive run at twice its scale). @default 1 */
  timeScale?: number;
  /** Whether its world refuses stale fences (src/world/ledger/settings-table.ts). @default true */
  worldFences?: boolean;
  /** Why every duration was stretched beyond the scale asked for: the queue's shortest lease. @default null */
  stretchedForQueue?: string | null;
  /** The invariants it exists to check (a run that could not judge one is not judged). @default none */
  checks?: InvariantId[];
  /** The options given for its queue (file defaults, then the scenario's, then the command line's), not yet checked against the queue. */
  queueOptions?: Readonly<Record<string, QueueOptionValue>>;
}

/** Thrown when what the command line asks for does not fit the file (an unknown --only name). */
export class ScenarioSelectionError extends InputError {
  readonly code = 'QD_BAD_SCENARIOS';
}

function resolveFault(fault: PointFault, index: number, jobs: ResolvedJob[], scenario: string): FaultRule {
  const base = {
    id: `f${index + 1}`,
    point: fault.at,
    ...(fault.where ? { where: resolveWhere(fault.where, jobs, scenario) } : {}),
    ...(fault.first === undefined ? {} : { first: fault.first }),
    ...(fault.probability === undefined ? {} : { probability: fault.probability }),
  };
  const arg = argOf(pointFaultAction(fault.action)!, fault);
  return { ...base, action: fault.action, ...(arg === undefined ? {} : { arg }) };
}

/** A point fault's `where` in the harness's terms: a job named by its place in the scenario becomes its key. */
function resolveWhere(where: NonNullable<PointFault['where']>, jobs: ResolvedJob[], scenario: string): FaultWhere {
  const { job: n, ...rest } = where;
  if (n === undefined) return rest;
  const job = jobs[n - 1];
  if (!job) throw new ScenarioSelectionError(`scenario ${scenario}: a point fault names job ${n}, but it has ${jobs.length} jobs`);
  return { ...rest, jobKey: job.key };
}

function resolveWorldFault(fault: WorldFault, jobs: ResolvedJob[], scenario: string): { spec: FaultSpecInput; describe: string } {
  const match: FaultSpecInput['match'] = {};
  const where: string[] = [];
  if (fault.world.step !== undefined) {
    const job = jobs[(fault.world.job ?? 1) - 1];
    if (!job) throw new ScenarioSelectionError(`scenario ${scenario}: a world fault names job ${fault.world.job}, but it has ${jobs.length} jobs`);
    if (!job.plan.steps.some((s) => s.step_id === fault.world.step)) {
      throw new ScenarioSelectionError(`scenario ${scenario}: a world fault names step ${fault.world.step}, which job ${job.n}'s plan does not have`);
    }
    match!.key = stepKey(job.key, fault.world.step);
    where.push(`job ${job.n} step ${fault.world.step}`);
  }
  if (fault.world.tool !== undefined) {
    match!.tool = fault.world.tool;
    where.push(`tool ${fault.world.tool}`);
  }
  if (fault.world.nth !== undefined) {
    match!.nth = fault.world.nth;
    where.push(`call #${fault.world.nth}`);
  }
  const kind = worldFaultAction(fault.action)!;
  const action = kind.fromScenario(fault as Record<string, unknown>) as FaultSpecInput['action'];
  const describe = `${kind.describe(action as never)} on ${where.join(', ')}`;
  return { spec: { match, action, times: fault.times ?? 1 }, describe };
}

/** The names of the fault fields that hold a duration, in either family of actions (what --time-scale stretches). */
const DURATION_FIELDS: ReadonlySet<string> = new Set(
  [...POINT_FAULT_ACTIONS, ...WORLD_FAULT_ACTIONS].flatMap((action) =>
    Object.entries(action.fields as Record<string, { kind: string }>)
      .filter(([, field]) => field.kind === 'ms')
      .map(([name]) => name),
  ),
);

function resolveScenario(file: ScenarioFile, scenario: ScenarioInput, options: ResolveOptions): ResolvedScenario {
  const { seed, queue } = options;
  const merged = { ...BUILT_IN_DEFAULTS, ...file.defaults, ...stripUndefined(scenario), ...(queue ? { queue } : {}) } as Settings;
  const stretch = stretchForQueue(merged, options.timeScale ?? 1);
  const k = stretch.k;
  const settings: Settings = scaleSettings(merged, k);
  const jobs: ResolvedJob[] = [];
  const secrets: string[] = [];
  scenario.jobs.forEach((group, g) => {
    const named = typeof group.plan === 'string' ? namedPlan(group.plan, file.plans)! : group.plan;
    for (let i = 0; i < group.count; i++) {
      let plan: Plan = named;
      if (group.secret !== undefined) {
        secrets.push(group.secret);
        const [first, ...rest] = named.steps;
        plan = parsePlan({ steps: [{ ...first!, args: { ...first!.args, api_key: group.secret } }, ...rest] });
      }
      const n = jobs.length + 1;
      const key = makeIdempotencyKey({
        repo: 'queue-drill/drill',
        branch: scenario.name,
        action: 'plan',
        payload: fromJsValue({ group: g + 1, n: i + 1 }),
        workflowVersion: 'drill-v1',
      });
      const expect: Expectation = typeof group.expect === 'string' ? { status: group.expect } : group.expect;
      jobs.push({ n, key, plan, maxAttempts: group.max_attempts ?? settings.max_attempts, expect });
    }
  });
  const workers =
    typeof scenario.workers === 'number'
      ? Array.from({ length: scenario.workers }, (_, i) => ({ id: `w${i + 1}`, clockSkewMs: 0 }))
      : scenario.workers.map((w) => ({ id: w.id, clockSkewMs: Math.round(w.clock_skew_ms * k) }));
  const pointFaults: FaultRule[] = [];
  const worldFaults: Array<{ spec: FaultSpecInput; describe: string }> = [];
  scenario.faults.forEach((given, index) => {
    const fault = scaleFault(given, DURATION_FIELDS, k);
    if ('at' in fault) pointFaults.push(resolveFault(fault, index, jobs, scenario.name));
    else worldFaults.push(resolveWorldFault(fault, jobs, scenario.name));
  });
  return {
    name: scenario.name,
    description: scenario.description,
    covers: scenario.covers ?? null,
    settings,
    seed,
    workers,
    jobs,
    pointFaults,
    worldFaults,
    invariants: scenario.invariants === 'all' ? [...INVARIANT_IDS] : scenario.invariants,
    secrets,
    timeScale: k,
    stretchedForQueue: stretch.line,
    worldFences: worldFences(settings),
    checks: scenario.checks,
    queueOptions: {
      ...file.defaults.queue_options?.[settings.queue],
      ...scenario.queue_options?.[settings.queue],
      ...commandLineQueueOptions(options.queueOptions, settings.queue),
    },
  };
}

/**
 * The scale a scenario runs at on its queue: the one asked for, or more where
 * the queue cannot keep a lease as short as the scenario's (the line says so).
 */
function stretchForQueue(settings: Settings, asked: number): { k: number; line: string | null } {
  const shortest = knownQueue(settings.queue)?.shortestLease;
  if (!shortest || settings.lease_ms * asked >= shortest.ms) return { k: asked, line: null };
  const k = Math.ceil((shortest.ms / settings.lease_ms) * 100) / 100;
  return { k, line: `every duration ×${k} (lease ${settings.lease_ms} → ${Math.round(settings.lease_ms * k)} ms): ${shortest.why}` };
}

/** Whether the scenario's world fences: as set, or (auto) on for the built-in queues and off for the queues people run. */
function worldFences(settings: Settings): boolean {
  if (settings.world_fences !== 'auto') return settings.world_fences === 'on';
  return knownQueue(settings.queue)?.soundness !== 'observed';
}

function knownQueue(name: string): QueueImpl | undefined {
  try {
    return queueImpl(name);
  } catch {
    return undefined; // an unknown queue is reported where it is used, with the list of known ones
  }
}

// The scenario object carries settings mixed with its own fields; only settings keys matter here.
function stripUndefined(scenario: ScenarioInput): Partial<Settings> {
  const settings: Partial<Settings> = {};
  for (const key of Object.keys(SettingsSchema.shape) as Array<keyof Settings>) {
    if (scenario[key] !== undefined) (settings as Record<string, unknown>)[key] = scenario[key];
  }
  return settings;
}

/** Queue options from the command line, by queue, as they apply to `queue`: those for any queue ('*'), then its own. */
export function commandLineQueueOptions(byQueue: ResolveOptions['queueOptions'], queue: string): Readonly<Record<string, QueueOptionValue>> {
  return { ...byQueue?.['*'], ...byQueue?.[queue] };
}

/** How to resolve a file's scenarios: the seed, the queue instead of the file's, and the stretch of every duration. */
export interface ResolveOptions {
  seed: number;
  queue?: string | undefined;
  only?: readonly string[];
  /** Every duration of the scenario times this (src/scenarios/time-scale.ts). @default 1 */
  timeScale?: number;
  /** Queue options from the command line, by queue ('*': whichever queue a scenario runs on); they win over the file's. */
  queueOptions?: Readonly<Record<string, Readonly<Record<string, QueueOptionValue>>>>;
}

/** The scenarios to run, in file order, `only` those named (all when empty). */
export function resolveScenarios(file: ScenarioFile, options: ResolveOptions): ResolvedScenario[] {
  const only = options.only ?? [];
  const names = file.scenarios.map((s) => s.name);
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new ScenarioSelectionError(`--only ${unknown.join(', ')}: no such scenario; the scenarios are: ${names.join(', ')}`);
  return file.scenarios.filter((s) => only.length === 0 || only.includes(s.name)).map((s) => resolveScenario(file, s, options));
}
