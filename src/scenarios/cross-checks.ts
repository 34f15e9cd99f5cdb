import { POINT_FAULT_ACTIONS, pointFaultAction } from '../faults/actions/index.js';
import { INJECTED_ERROR_KINDS } from '../faults/points.js';
import { fieldIssues } from '../kernel/action-fields.js';
import { InputError } from '../kernel/errors.js';
import { ADAPTER_PREFIX } from '../queues/adapter-module.js';
import { queueImpl } from '../queues/registry.js';
import { WORLD_FAIL_STATUSES, WORLD_FAULT_ACTIONS, worldFaultAction } from '../world/fault-actions/index.js';
import { MAX_JOB_COUNT } from './file-limits.js';
import { namedPlan, PLAN_LIBRARY } from './plan-library.js';
import type { Segment } from './scenario-issue.js';

/*
 * What a scenarios file's parts say about each other, which no schema of one
 * part can check: the queues it names exist, scenario names are unique, a
 * job's plan name is declared (or in the library), a fault's job and step
 * exist, a fault gives the fields its action needs and no other action's.
 *
 * Checked on the file as read, not as validated, and side by side with the
 * schema: a file with a mistyped field and a fault naming a missing step gets
 * both at once. So every read here is wary: a part that is not what it should
 * be is the schema's to report, and is passed over here.
 */

/** One problem, at its path in the data. */
export interface CrossIssue {
  path: Segment[];
  message: string;
}

type Raw = Readonly<Record<string, unknown>>;

function record(value: unknown): Raw | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : undefined;
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined;
}

/** What a field of a kind may hold, for a message about one that is missing. */
export function allowedValues(kind: string): string | undefined {
  if (kind === 'error-kind') return `one of ${INJECTED_ERROR_KINDS.join(', ')}`;
  if (kind === 'fail-status') return `${WORLD_FAIL_STATUSES.slice(0, -1).join(', ')} or ${WORLD_FAIL_STATUSES.at(-1)}`;
  return undefined;
}

/** A `queue:` that names no implementation, or an adapter module (a path, which a file shared between machines cannot pin). */
function queueIssues(path: Segment[], queue: unknown): CrossIssue[] {
  if (typeof queue !== 'string' || queue === '') return [];
  if (queue.startsWith(ADAPTER_PREFIX))
    return [
      {
        path,
        message: `${queue}: an adapter module is named on the command line (--adapter PATH) or by the library (runDrill({ adapter })), not in a scenarios file`,
      },
    ];
  try {
    queueImpl(queue);
    return [];
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return [{ path, message: error.message }];
  }
}

/** A plan's step ids (a step without one is named after its tool), or undefined when the plan cannot be read for them. */
function stepIdsOf(plan: unknown): string[] | undefined {
  const steps = record(plan)?.steps;
  if (!Array.isArray(steps)) return undefined;
  const ids = steps.map((step) => {
    const id = record(step)?.step_id ?? record(step)?.tool;
    return typeof id === 'string' ? id : undefined;
  });
  return ids.every((id) => id !== undefined) ? (ids as string[]) : undefined;
}

function planNames(plans: Raw): string {
  const own = Object.keys(plans);
  return `${own.length > 0 ? `this file's: ${own.join(', ')}; ` : ''}the library's: ${Object.keys(PLAN_LIBRARY).join(', ')}`;
}

/**
 * Each job of a scenario in order (a group of count N is N jobs), by its
 * plan's step ids (undefined where the plan cannot be read); null when how
 * many jobs there are cannot be told. A plan name declared nowhere is an issue.
 */
function jobSteps(groups: unknown, plans: Raw, at: Segment[], issues: CrossIssue[]): Array<string[] | undefined> | null {
  if (!Array.isArray(groups)) return null;
  const jobs: Array<string[] | undefined> = [];
  let countable = true;
  groups.forEach((raw, j) => {
    const group = record(raw);
    const named = group?.plan;
    let steps: string[] | undefined;
    if (typeof named === 'string' && named !== '') {
      const plan = namedPlan(named, plans);
      if (plan === undefined) issues.push({ path: [...at, 'jobs', j, 'plan'], message: `no plan named ${named}; the plans are ${planNames(plans)}` });
      steps = stepIdsOf(plan);
    } else steps = stepIdsOf(named);
    const count = group?.count === undefined ? 1 : positiveInt(group.count);
    // Beyond the schema's limit the schema says so; counting out a group of millions would run out of memory first.
    if (count === undefined || count > MAX_JOB_COUNT) countable = false;
    else jobs.push(...Array.from({ length: count }, () => steps));
  });
  return countable ? jobs : null;
}

/** A fault that names a job the scenario does not have, or a step its job's plan (a point fault with no job: any job's) does not have. */
function referenceIssues(fault: Raw, jobs: ReadonlyArray<string[] | undefined>): CrossIssue[] {
  const point = 'at' in fault;
  const where = record(point ? fault.where : fault.world);
  const key = point ? 'where' : 'world';
  const n = positiveInt(where?.job);
  if (n !== undefined && n > jobs.length)
    return [{ path: [key, 'job'], message: `no job ${n}: this scenario has ${jobs.length} (jobs count from 1)` }];
  const step = where?.step;
  if (typeof step !== 'string') return [];
  if (point && n === undefined) {
    if (jobs.some((steps) => steps === undefined)) return [];
    const all = [...new Set(jobs.flatMap((steps) => steps ?? []))];
    return all.includes(step) ? [] : [{ path: [key, 'step'], message: `no job's plan has a step ${step}; their steps are: ${all.join(', ')}` }];
  }
  const steps = jobs[(n ?? 1) - 1];
  if (steps !== undefined && !steps.includes(step))
    return [{ path: [key, 'step'], message: `job ${n ?? 1}'s plan has no step ${step}; its steps are: ${steps.join(', ')}` }];
  return [];
}

/**
 * The processes a scenario runs, by the names a fault's `where: { worker }` matches: its workers (w1... or the
 * ids it gives), its producers (p1..., and as many again with enqueue_again), its coordinator; null when they
 * cannot be told (a setting of the wrong type: the schema says so).
 */
function processNamesOf(scenario: Raw, defaults: Raw): string[] | null {
  const setting = (name: string, fallback: unknown) => scenario[name] ?? defaults[name] ?? fallback;
  const workers = setting('workers', 2);
  const count = Array.isArray(workers) ? workers.length : (positiveInt(workers) ?? 0);
  const producers = positiveInt(setting('producers', 1)) ?? 0;
  // Out of the schema's range the schema says so; counting out millions of names would run out of memory first.
  if (count === 0 || count > MAX_PROCESSES || producers === 0 || producers > MAX_PROCESSES) return null;
  const ids = Array.isArray(workers) ? workers.map((w) => record(w)?.id) : Array.from({ length: count }, (_, i) => `w${i + 1}`);
  if (ids.some((id) => typeof id !== 'string')) return null;
  const again = setting('enqueue_again', false) === false ? 1 : 2;
  return [
    ...(ids as string[]),
    ...Array.from({ length: producers * again }, (_, i) => `p${i + 1}`),
    ...(setting('coordinator', true) === false ? [] : ['coordinator']),
  ];
}

/** More workers or producers than any scenario may have (the schema allows 32 and 16). */
const MAX_PROCESSES = 64;

/** A point fault limited to a process the scenario does not run: it could never fire. */
function processIssues(fault: Raw, names: readonly string[] | null): CrossIssue[] {
  const worker = 'at' in fault ? record(fault.where)?.worker : undefined;
  if (names === null || typeof worker !== 'string' || names.includes(worker)) return [];
  return [{ path: ['where', 'worker'], message: `no process ${worker} in this scenario: it runs ${names.join(', ')}` }];
}

/** What a fault's action needs and does not take; a world fault that says no calls. */
function actionIssues(fault: Raw): CrossIssue[] {
  const name = typeof fault.action === 'string' ? fault.action : '';
  if ('at' in fault) {
    const action = pointFaultAction(name);
    return action ? fieldIssues(action, POINT_FAULT_ACTIONS, fault, { action: action.name, allowed: allowedValues }).map(at) : [];
  }
  const action = worldFaultAction(name);
  const issues = action ? fieldIssues(action, WORLD_FAULT_ACTIONS, fault, { action: `a world ${action.name}`, allowed: allowedValues }).map(at) : [];
  const world = record(fault.world);
  if (world && world.step === undefined && world.tool === undefined && world.nth === undefined)
    issues.push({ path: ['world'], message: 'say which calls: step, tool or nth' });
  return issues;
}

function at(issue: { field: string; message: string }): CrossIssue {
  return { path: [issue.field], message: issue.message };
}

/** An invariant the scenario exists to check must be one it runs (`invariants:`, all by default). */
function checksIssues(scenario: Raw, here: Segment[]): CrossIssue[] {
  const run = scenario.invariants;
  if (!Array.isArray(run)) return [];
  return list(scenario.checks).flatMap((id, c) =>
    typeof id === 'string' && !run.includes(id)
      ? [{ path: [...here, 'checks', c], message: `${id} is not among the invariants this scenario runs (${run.join(', ')})` }]
      : [],
  );
}

/** One scenario's problems of reference, at their paths from the file's root. */
function scenarioIssues(scenario: Raw, index: number, file: { plans: Raw; defaults: Raw }): CrossIssue[] {
  const here: Segment[] = ['scenarios', index];
  const issues: CrossIssue[] = queueIssues([...here, 'queue'], scenario.queue);
  const jobs = jobSteps(scenario.jobs, file.plans, here, issues);
  const processes = processNamesOf(scenario, file.defaults);
  issues.push(...checksIssues(scenario, here));
  list(scenario.faults).forEach((raw, f) => {
    const fault = record(raw);
    if (!fault) return;
    const found = [...(jobs === null ? [] : referenceIssues(fault, jobs)), ...processIssues(fault, processes), ...actionIssues(fault)];
    issues.push(...found.map((issue) => ({ path: [...here, 'faults', f, ...issue.path], message: issue.message })));
  });
  return issues;
}

/** Every problem of reference in a scenarios file as read (before or without its validation). */
export function crossFileIssues(data: unknown): CrossIssue[] {
  const file = record(data);
  if (!file) return [];
  const plans = record(file.plans) ?? {};
  const issues: CrossIssue[] = queueIssues(['defaults', 'queue'], record(file.defaults)?.queue);
  const names = new Set<string>();
  list(file.scenarios).forEach((raw, index) => {
    const scenario = record(raw);
    if (!scenario) return;
    if (typeof scenario.name === 'string') {
      if (names.has(scenario.name)) issues.push({ path: ['scenarios', index, 'name'], message: `scenario ${scenario.name} is named twice` });
      names.add(scenario.name);
    }
    issues.push(...scenarioIssues(scenario, index, { plans, defaults: record(file.defaults) ?? {} }));
  });
  return issues;
}
