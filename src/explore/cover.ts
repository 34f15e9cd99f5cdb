import fc from 'fast-check';
import type { FaultActionName } from '../faults/actions/index.js';
import { type FailpointName, isStepPoint } from '../faults/points.js';
import { type Random, randomInt, seededRandom } from '../kernel/random.js';
import { CATALOGUE, isToolName } from '../world/catalogue.js';
import { TOOL_EFFECT_KINDS, type ToolEffectKind, toolEffectKind, toolsOfKind } from '../world/effect-kinds.js';
import { WORLD_FAULT_ACTIONS, type WorldFaultActionName } from '../world/fault-actions/index.js';
import { type ExploredAction, type ExploreScope, NO_NETWORK } from './action-scope.js';
import { EXPLORE_PLANS } from './plans.js';
import { everyHitAllowed, type PointFaultSpec, type Schedule, type WorldFaultSpec } from './schedule.js';

/*
 * Explore's covering schedules. The first runs of an explore walk them, in an
 * order drawn from the seed, before fast-check's random draws follow (as
 * examples, which fast-check shrinks like any value it drew). Between them
 * they arm every fault action explore draws on the queue (action-scope.ts) at
 * every point it draws it at, for a step of every kind of effect at the points
 * reached for a step (a point tied to no step counts once, and so does a
 * network action's point: it cuts the link whatever the step), and every
 * world fault action on a step of every kind of effect. So what explore
 * reaches does not hang on luck: it needs only as many runs as there are
 * covering schedules (coverSchedules(seed, scope).length).
 *
 * Each cell is armed by a bundle on one job: one point fault, with the world
 * faults that lead to its point (a slow answer for on_timeout and heartbeat,
 * a lost one for response_lost, a permanent failure of a later step for
 * during_compensation; on a queue with a network, a holder killed after its
 * claim for before_release); world fault actions that no point needed get
 * bundles of their own. A schedule packs two bundles, each limited to a job
 * of its own, so faults never keep each other from their points (one job's
 * crash or error ends that job's attempt, not the other's). The rest (the
 * action's fields, first, a third job, workers and producers) is drawn from
 * the seed, except where a zombie's cell needs its cast (castOf): a holder
 * frozen (or cut off from its server) at before_complete gets other workers,
 * and a pause long enough for one of them to take its job over and finish
 * it, so its complete lands on a done job; a holder frozen at heartbeat is
 * the only worker, so nobody claims its job once the lease is swept, and its
 * renewal lands on a job nobody holds.
 */

/** One combination the covering schedules arm: a point fault for a kind of step (null: a point tied to no step, or a network fault), or a world fault. */
export type CoverCell =
  | { family: 'point'; action: FaultActionName; at: FailpointName; kind: ToolEffectKind | null }
  | { family: 'world'; action: WorldFaultActionName; kind: ToolEffectKind };

const WORLD_ACTIONS = WORLD_FAULT_ACTIONS.filter((action) => action.explore !== undefined);

/** World actions that apply a call and leave its caller without a usable answer: what leads to response_lost. */
const LOST_ANSWERS: readonly WorldFaultActionName[] = ['drop', 'error_after_apply'];

/** Past the caller's timeout (EXPLORE_SETTINGS.call_timeout_ms) and past a few lease renewals. */
const SLOW_MS = 1_000;

/** Past the lease and its margin (EXPLORE_SETTINGS), the sweep, and another worker's whole run of the longest explore plan. */
const TAKEOVER_AND_FINISH_MS = 1_800;

/** The actions after which a holder stopped past its lease goes on as if it still held its job: a zombie. */
const ZOMBIE_ACTIONS: ReadonlySet<FaultActionName> = new Set<FaultActionName>(['pause', 'block']);

/**
 * A holder cut off from its server runs on, and its held writes land when the link heals: a zombie too, at
 * before_complete. Not at heartbeat alone: a partition until the job is claimed again would then outlast
 * the drill's no-progress watchdog, with nobody left to claim it.
 */
const CUT_OFF_ACTIONS: ReadonlySet<FaultActionName> = new Set<FaultActionName>(['partition']);

/** The workers a bundle's cell needs: others to take its job over and finish it, or its holder alone. */
type Cast = 'others' | 'alone';

/**
 * The cast a zombie's cell needs, if any. At before_complete, others: one of
 * them finishes the job while the zombie sleeps, so its complete lands after
 * the job is done. At heartbeat, the holder alone: nobody claims the job once
 * its lease is swept, so the renewal lands on a job nobody holds (with other
 * workers, one claims it, and the renewal meets a new holder: other cells'
 * ground, zombie-worker's and zombie-complete's).
 */
function castOf(at: FailpointName, action: FaultActionName): Cast | undefined {
  if (CUT_OFF_ACTIONS.has(action)) return at === 'before_complete' ? 'others' : undefined;
  if (!ZOMBIE_ACTIONS.has(action)) return undefined;
  if (at === 'before_complete') return 'others';
  return at === 'heartbeat' ? 'alone' : undefined;
}

/** The kinds of effect a point is reached for: none for a point tied to no step, those that can be undone for during_compensation. */
export function kindsAt(at: FailpointName): Array<ToolEffectKind | null> {
  if (!isStepPoint(at)) return [null];
  if (at !== 'during_compensation') return [...TOOL_EFFECT_KINDS];
  return TOOL_EFFECT_KINDS.filter((kind) => toolsOfKind(kind).some((tool) => CATALOGUE[tool].compensationTool !== null));
}

/** The kinds of effect an action's cells at a point are for: a network action's one, null, cuts the link whatever the step's kind. */
function cellKindsAt(action: ExploredAction, at: FailpointName): Array<ToolEffectKind | null> {
  return action.network ? [null] : kindsAt(at);
}

/** Every combination explore must reach on a queue that gets `scope`'s actions. */
export function coverCells(scope: ExploreScope = NO_NETWORK): CoverCell[] {
  return [
    ...scope.actions.flatMap((action) =>
      scope
        .pointsOf(action.name)
        .flatMap((at) => cellKindsAt(action, at).map((kind): CoverCell => ({ family: 'point', action: action.name as FaultActionName, at, kind }))),
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

/** Where a step of a kind (null: any) sits in the explore plans; for a compensation, only a reversible step with a later step to fail. */
function placesOf(kind: ToolEffectKind | null, at: FailpointName | null): Place[] {
  return Object.entries(EXPLORE_PLANS).flatMap(([plan, { steps }]) =>
    steps.flatMap((step, stepIndex) => {
      if (!isToolName(step.tool) || (kind !== null && toolEffectKind(step.tool) !== kind)) return [];
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

/** A holder killed right after its job's first claim, so the coordinator's sweep finds its expired lease to take back. */
const DEAD_HOLDER: PointFaultSpec = {
  kind: 'point',
  at: 'after_claim',
  action: 'crash',
  fields: {},
  stepIndex: null,
  attempt: null,
  first: 1,
  job: 0,
};

/**
 * The faults that lead a schedule to its point at this place (`nth`: which action of the cell's point this is): world
 * faults on the job, or for before_release its holder killed (as the exhaustive matrix reaches it): the coordinator's
 * sweep finds an expired lease only where a holder died.
 */
function leadTo(at: FailpointName, place: Place, nth: number, random: Random): Array<PointFaultSpec | WorldFaultSpec> {
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
    case 'before_release':
      return [DEAD_HOLDER];
    default:
      return [];
  }
}

/** The faults that arm one cell on one job of `plan` (job 0 until packed into a schedule), and the cast it needs, if any. */
interface Bundle {
  plan: string;
  faults: Array<PointFaultSpec | WorldFaultSpec>;
  cast?: Cast;
}

/** The bundle arming one point cell, its fields drawn from the seed (a network cell at a step's point: led to a step of any kind). */
function pointBundle(cell: Extract<CoverCell, { family: 'point' }>, nth: number, random: Random, scope: ExploreScope): Bundle {
  const place: Place =
    cell.kind === null && !isStepPoint(cell.at)
      ? { plan: pick(random, Object.keys(EXPLORE_PLANS)), stepIndex: 0 }
      : pick(random, placesOf(cell.kind, cell.at));
  const action = scope.actions.find((a) => a.name === cell.action)!;
  const roll = random.next();
  const cast = castOf(cell.at, cell.action);
  const fields = drawn(random, action.explore(fc));
  const fault: PointFaultSpec = {
    kind: 'point',
    at: cell.at,
    action: cell.action,
    fields: cast === 'others' ? { ...fields, ms: Math.max(Number(fields.ms ?? 0), TAKEOVER_AND_FINISH_MS) } : fields,
    stepIndex: cell.kind === null ? null : place.stepIndex,
    // The first hit always fires: the point is reached whatever the attempt.
    attempt: null,
    // A zombie's cell freezes the job's first holder only: were every holder frozen, none would finish the job.
    first: cast !== undefined ? 1 : roll < 0.25 && everyHitAllowed(cell.at) ? null : roll < 0.6 ? 2 : 1,
    job: 0,
  };
  return { plan: place.plan, faults: [fault, ...leadTo(cell.at, place, nth, random)], ...(cast ? { cast } : {}) };
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
  // Two bundles never need opposite casts (separateCasts).
  const cast = bundles.find((bundle) => bundle.cast)?.cast;
  return {
    faults: bundles.flatMap((bundle, job) => bundle.faults.map((fault) => ({ ...fault, job }))),
    jobs: [...bundles.map((b) => b.plan), ...more],
    workers: randomInt(random, cast === 'others' ? 2 : 1, cast === 'alone' ? 1 : 3),
    producers: randomInt(random, 1, 2),
  };
}

/** Two bundles whose cells need opposite casts (one holder alone, other workers) cannot share a schedule. */
function clash(a: Bundle | undefined, b: Bundle | undefined): boolean {
  return a?.cast !== undefined && b?.cast !== undefined && a.cast !== b.cast;
}

/** Where bundles paired in order (0 with 1, 2 with 3...) would clash, the second trades places with a bundle that needs no cast. */
function separateCasts(bundles: Bundle[]): void {
  for (let i = 0; i + 1 < bundles.length; i += 2) {
    if (!clash(bundles[i], bundles[i + 1])) continue;
    const other = bundles.findIndex((b, j) => j >> 1 !== i >> 1 && b.cast === undefined && !clash(bundles[i + 1], bundles[j ^ 1]));
    if (other >= 0) [bundles[i + 1], bundles[other]] = [bundles[other]!, bundles[i + 1]!];
  }
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

/** The covering schedules of a queue that gets `scope`'s actions, in an order drawn from the seed: each arms two cells (one per job), every cell is armed. */
export function coverSchedules(seed: number, scope: ExploreScope = NO_NETWORK): Schedule[] {
  const random = seededRandom(seed);
  const cells = coverCells(scope);
  const points = cells.flatMap((cell) => {
    if (cell.family !== 'point') return [];
    const nth = scope.actions.findIndex((a) => a.name === cell.action);
    return [pointBundle(cell, nth, random, scope)];
  });
  const armed = new Set(points.flatMap(worldCellsOf));
  const worlds = cells.flatMap((cell) => (cell.family === 'world' && !armed.has(cellName(cell)) ? [worldBundle(cell, random)] : []));
  const bundles = [...points, ...worlds];
  // Fisher-Yates: pairs from all over, and a run cut short by --runs or the time budget still walks cells from all over.
  for (let i = bundles.length - 1; i > 0; i--) {
    const j = randomInt(random, 0, i);
    [bundles[i], bundles[j]] = [bundles[j]!, bundles[i]!];
  }
  separateCasts(bundles);
  return Array.from({ length: Math.ceil(bundles.length / 2) }, (_, i) => schedule(bundles.slice(2 * i, 2 * i + 2), random));
}
