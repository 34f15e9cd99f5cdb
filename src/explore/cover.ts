import fc from 'fast-check';
import { type FaultActionName, POINT_FAULT_ACTIONS } from '../faults/actions/index.js';
import { FAILPOINTS, type FailpointName, STEP_FAILPOINTS } from '../faults/points.js';
import { type Random, randomInt, seededRandom } from '../kernel/random.js';
import { CATALOGUE, isToolName } from '../world/catalogue.js';
import { TOOL_EFFECT_KINDS, type ToolEffectKind, toolEffectKind, toolsOfKind } from '../world/effect-kinds.js';
import { WORLD_FAULT_ACTIONS, type WorldFaultActionName } from '../world/fault-actions/index.js';
import { EXPLORE_PLANS } from './plans.js';
import { everyHitAllowed, type PointFaultSpec, type Schedule, type WorldFaultSpec } from './schedule.js';

/*
 * Explore's covering schedules. The first runs of an explore walk them, in an
 * order drawn from the seed, before fast-check's random draws follow (as
 * examples, which fast-check shrinks like any value it drew). Between them
 * they arm every fault action explore draws at every named point, for a step
 * of every kind of effect at the points reached for a step (a point tied to
 * no step counts once), and every world fault action on a step of every kind
 * of effect. So what explore reaches does not hang on luck: it needs only as
 * many runs as there are covering schedules (coverSchedules(seed).length).
 *
 * Each cell is armed by a bundle on one job: one point fault, with the world
 * faults that lead to its point (a slow answer for on_timeout and heartbeat,
 * a lost one for response_lost, a permanent failure of a later step for
 * during_compensation); world fault actions that no point needed get bundles
 * of their own. A schedule packs two bundles, each limited to a job of its
 * own, so faults never keep each other from their points (one job's crash or
 * error ends that job's attempt, not the other's). The rest (the action's
 * fields, first, a third job, workers and producers) is drawn from the seed.
 */

/** One combination the covering schedules arm: a point fault for a kind of step (null: a point tied to no step), or a world fault. */
export type CoverCell =
  | { family: 'point'; action: FaultActionName; at: FailpointName; kind: ToolEffectKind | null }
  | { family: 'world'; action: WorldFaultActionName; kind: ToolEffectKind };

const POINT_ACTIONS = POINT_FAULT_ACTIONS.filter((action) => action.explore !== undefined);
const WORLD_ACTIONS = WORLD_FAULT_ACTIONS.filter((action) => action.explore !== undefined);

/** World actions that apply a call and leave its caller without a usable answer: what leads to response_lost. */
const LOST_ANSWERS: readonly WorldFaultActionName[] = ['drop', 'error_after_apply'];

/** Past the caller's timeout (EXPLORE_SETTINGS.call_timeout_ms) and past a few lease renewals. */
const SLOW_MS = 1_000;

const isStepPoint = (at: FailpointName): boolean => (STEP_FAILPOINTS as readonly string[]).includes(at);

/** The kinds of effect a point is reached for: none for a point tied to no step, those that can be undone for during_compensation. */
export function kindsAt(at: FailpointName): Array<ToolEffectKind | null> {
  if (!isStepPoint(at)) return [null];
  if (at !== 'during_compensation') return [...TOOL_EFFECT_KINDS];
  return TOOL_EFFECT_KINDS.filter((kind) => toolsOfKind(kind).some((tool) => CATALOGUE[tool].compensationTool !== null));
}

/** Every combination explore must reach. */
export function coverCells(): CoverCell[] {
  return [
    ...POINT_ACTIONS.flatMap((action) =>
      FAILPOINTS.flatMap((at) => kindsAt(at).map((kind): CoverCell => ({ family: 'point', action: action.name as FaultActionName, at, kind }))),
    ),
    ...WORLD_ACTIONS.flatMap((action) => TOOL_EFFECT_KINDS.map((kind): CoverCell => ({ family: 'world', action: action.name, kind }))),
  ];
}

/** A cell as text: `crash@after_write/idempotent`, `crash@after_claim`, `drop~idempotent`. */
export function cellName(cell: CoverCell): string {
  if (cell.family === 'world') return `${cell.action}~${cell.kind}`;
  return `${cell.action}@${cell.at}${cell.kind === null ? '' : `/${cell.kind}`}`;
}

interface Place {
  plan: string;
  stepIndex: number;
}

/** Where a step of a kind sits in the explore plans; for a compensation, only a reversible step with a later step to fail. */
function placesOf(kind: ToolEffectKind, at: FailpointName | null): Place[] {
  return Object.entries(EXPLORE_PLANS).flatMap(([plan, { steps }]) =>
    steps.flatMap((step, stepIndex) => {
      if (!isToolName(step.tool) || toolEffectKind(step.tool) !== kind) return [];
      if (at === 'during_compensation' && (step.compensation === null || stepIndex === steps.length - 1)) return [];
      return [{ plan, stepIndex }];
    }),
  );
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[randomInt(random, 0, items.length - 1)]!;
}

/** One value of an arbitrary, from the seed. */
function drawn<T>(random: Random, arbitrary: fc.Arbitrary<T>): T {
  return fc.sample(arbitrary, { seed: randomInt(random, 0, 2 ** 31 - 1), numRuns: 1 })[0]!;
}

function world(action: WorldFaultActionName, stepIndex: number, fields: Record<string, unknown>): WorldFaultSpec {
  return { kind: 'world', job: 0, stepIndex, action, fields, times: 1 };
}

/** The world faults that lead a schedule to its point at this place (`nth`: which action of the cell's point this is). */
function leadTo(at: FailpointName, place: Place, nth: number, random: Random): WorldFaultSpec[] {
  const last = EXPLORE_PLANS[place.plan]!.steps.length - 1;
  switch (at) {
    case 'on_timeout':
      return [world('delay', place.stepIndex, { ms: SLOW_MS, applied: random.next() < 0.5 })];
    case 'heartbeat':
      // A slow call: the lease is renewed while the job waits on it.
      return [world('delay', place.stepIndex, { ms: SLOW_MS, applied: true })];
    case 'response_lost':
      // Alternating between the actions of a point, so both kinds of lost answer meet every kind of step.
      return [world(LOST_ANSWERS[nth % LOST_ANSWERS.length]!, place.stepIndex, {})];
    case 'during_compensation':
      return [world('fail', last, { status: pick(random, [401, 403]) })];
    default:
      return [];
  }
}

/** The faults that arm one cell on one job of `plan` (job 0 until packed into a schedule). */
interface Bundle {
  plan: string;
  faults: Array<PointFaultSpec | WorldFaultSpec>;
}

/** The bundle arming one point cell, its fields drawn from the seed. */
function pointBundle(cell: Extract<CoverCell, { family: 'point' }>, nth: number, random: Random): Bundle {
  const place: Place =
    cell.kind === null ? { plan: pick(random, Object.keys(EXPLORE_PLANS)), stepIndex: 0 } : pick(random, placesOf(cell.kind, cell.at));
  const action = POINT_ACTIONS.find((a) => a.name === cell.action)!;
  const roll = random.next();
  const fault: PointFaultSpec = {
    kind: 'point',
    at: cell.at,
    action: cell.action,
    fields: drawn(random, action.explore!(fc)),
    stepIndex: cell.kind === null ? null : place.stepIndex,
    // The first hit always fires: the point is reached whatever the attempt.
    attempt: null,
    first: roll < 0.25 && everyHitAllowed(cell.at) ? null : roll < 0.6 ? 2 : 1,
    job: 0,
  };
  return { plan: place.plan, faults: [fault, ...leadTo(cell.at, place, nth, random)] };
}

/** The bundle arming one world cell on its own. */
function worldBundle(cell: Extract<CoverCell, { family: 'world' }>, random: Random): Bundle {
  const place = pick(random, placesOf(cell.kind, null));
  const { times, ...fields } = drawn(random, WORLD_ACTIONS.find((a) => a.name === cell.action)!.explore!(fc));
  return { plan: place.plan, faults: [{ kind: 'world', job: 0, stepIndex: place.stepIndex, action: cell.action, fields, times: times as number }] };
}

/**
 * Two bundles in one schedule, each on a job of its own (jobs 1 and 2), with
 * up to one more job, 1 to 3 workers and 1 or 2 producers. Faults limited to
 * different jobs do not keep each other from their points: a crash or an
 * error ends one job's attempt, never another's, and a killed process is
 * restarted.
 */
function schedule(bundles: readonly Bundle[], random: Random): Schedule {
  const more = Array.from({ length: randomInt(random, 0, 1) }, () => pick(random, Object.keys(EXPLORE_PLANS)));
  return {
    faults: bundles.flatMap((bundle, job) => bundle.faults.map((fault) => ({ ...fault, job }))),
    jobs: [...bundles.map((b) => b.plan), ...more],
    workers: randomInt(random, 1, 3),
    producers: randomInt(random, 1, 2),
  };
}

/** The world cells a bundle's world faults arm. */
function worldCellsOf(bundle: Bundle): string[] {
  const steps = EXPLORE_PLANS[bundle.plan]!.steps;
  return bundle.faults.flatMap((fault) => {
    if (fault.kind !== 'world') return [];
    const tool = steps[fault.stepIndex % steps.length]!.tool;
    if (!isToolName(tool)) return [];
    const kind = toolEffectKind(tool);
    return kind === null ? [] : [cellName({ family: 'world', action: fault.action, kind })];
  });
}

/** The covering schedules, in an order drawn from the seed: each arms two cells (one per job), every cell is armed. */
export function coverSchedules(seed: number): Schedule[] {
  const random = seededRandom(seed);
  const cells = coverCells();
  const points = cells.flatMap((cell) => {
    if (cell.family !== 'point') return [];
    const nth = POINT_ACTIONS.findIndex((a) => a.name === cell.action);
    return [pointBundle(cell, nth, random)];
  });
  const armed = new Set(points.flatMap(worldCellsOf));
  const worlds = cells.flatMap((cell) => (cell.family === 'world' && !armed.has(cellName(cell)) ? [worldBundle(cell, random)] : []));
  const bundles = [...points, ...worlds];
  // Fisher-Yates: pairs from all over, and a run cut short by --runs or the time budget still walks cells from all over.
  for (let i = bundles.length - 1; i > 0; i--) {
    const j = randomInt(random, 0, i);
    [bundles[i], bundles[j]] = [bundles[j]!, bundles[i]!];
  }
  return Array.from({ length: Math.ceil(bundles.length / 2) }, (_, i) => schedule(bundles.slice(2 * i, 2 * i + 2), random));
}
