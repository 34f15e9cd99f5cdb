import fc from 'fast-check';
import type { FaultActionName } from '../faults/actions/index.js';
import { type FailpointName, isHoldersPoint, isStepPoint } from '../faults/points.js';
import { WORLD_FAULT_ACTIONS, type WorldFaultActionName } from '../world/fault-actions/index.js';
import { type ExploredAction, type ExploreScope, NO_NETWORK } from './action-scope.js';
import { EXPLORE_PLANS } from './plans.js';
import { shrinkableFields } from './shrinkable-fields.js';

/*
 * A fault schedule, as fast-check generates and shrinks it. The fields are in
 * the order shrinking should give them up: faults first (fewest faults), then
 * jobs, then workers and producers, so a counterexample shrinks to the smallest
 * cast that still breaks an invariant. Every arbitrary here can also shrink a
 * schedule it did not generate (explore's covering schedules, src/explore/cover.ts,
 * are handed to fast-check as examples): records, constants and integers
 * can, a map() carries its inverse, and the actions' own draws are wrapped.
 */

/** A fault at a point: any failpoint, any action explore draws on the queue (each action says how it draws its fields; action-scope.ts). */
export interface PointFaultSpec {
  kind: 'point';
  at: FailpointName;
  action: FaultActionName;
  fields: Record<string, unknown>;
  /** The step of its job's plan it is limited to (modulo its length), or null: any step. Only for a step's points. */
  stepIndex: number | null;
  attempt: number | null;
  /** Only the first N hits; null: every hit (a poison fault), only at points bounded by a job's attempts. */
  first: number | null;
  /** The job it is limited to: an index into the schedule's jobs, modulo their number. */
  job: number;
}

/** A fault on the world's calls of one step of one job: any world action explore draws (each says how it draws its fields). */
export interface WorldFaultSpec {
  kind: 'world';
  /** The job whose step it is: an index into the schedule's jobs, modulo their number. */
  job: number;
  stepIndex: number;
  action: WorldFaultActionName;
  fields: Record<string, unknown>;
  times: number;
}

export interface Schedule {
  faults: Array<PointFaultSpec | WorldFaultSpec>;
  jobs: string[];
  workers: number;
  producers: number;
}

/**
 * Whether a point fault may fire on every hit. It is bounded only where each hit belongs to an attempt of
 * a job (a worker's points): the job runs out of attempts and goes to review.
 * A producer's enqueue and the coordinator's compensation are not counted in
 * attempts: a crash on every hit there outlives every restart and leaves the
 * drill short of rest whatever the queue does, which is no finding.
 */
export function everyHitAllowed(at: FailpointName): boolean {
  return isHoldersPoint(at);
}

const attempt = fc.option(fc.integer({ min: 1, max: 2 }), { nil: null });
// Every hit one draw in four; shrinks toward 1 (a bounded first), with or without fast-check's context.
const first = fc.mapToConstant<number | null>({ num: 3, build: (i) => (i < 2 ? 1 : 2) }, { num: 1, build: () => null });

/** One action's point faults at its points: at a step's points, maybe limited to a step of the first job; elsewhere, never. */
function pointFaults(action: ExploredAction, points: readonly FailpointName[]) {
  const shape = (at: readonly FailpointName[], stepIndex: fc.Arbitrary<number | null>) =>
    fc
      .record({
        kind: fc.constant('point' as const),
        at: fc.constantFrom(...at),
        action: fc.constant(action.name as FaultActionName),
        fields: shrinkableFields(action.explore(fc)),
        stepIndex,
        attempt,
        first,
        job: fc.nat(2),
      })
      .filter((fault) => fault.first !== null || everyHitAllowed(fault.at));
  const steps = points.filter(isStepPoint);
  const others = points.filter((at) => !isStepPoint(at));
  return [
    ...(steps.length > 0 ? [shape(steps, fc.option(fc.nat(2), { nil: null }))] : []),
    ...(others.length > 0 ? [shape(others, fc.constant(null))] : []),
  ];
}

/** A point fault of any action explore draws on the queue, at any of its points. */
function pointFault(scope: ExploreScope): fc.Arbitrary<PointFaultSpec> {
  return fc.oneof(...scope.actions.flatMap((action) => pointFaults(action, scope.pointsOf(action.name))));
}

const worldFault: fc.Arbitrary<WorldFaultSpec> = fc.oneof(
  ...WORLD_FAULT_ACTIONS.flatMap((action) =>
    action.explore
      ? [
          fc.record({ job: fc.nat(2), stepIndex: fc.nat(2), drawn: shrinkableFields(action.explore(fc)) }).map(
            ({ job, stepIndex, drawn: { times, ...fields } }): WorldFaultSpec => ({
              kind: 'world',
              job,
              stepIndex,
              action: action.name as WorldFaultActionName,
              fields,
              times: times as number,
            }),
            (value) => {
              const spec = value as WorldFaultSpec;
              if (spec?.kind !== 'world' || spec.action !== action.name) throw new Error(`not a world ${action.name} fault`);
              return { job: spec.job, stepIndex: spec.stepIndex, drawn: { ...spec.fields, times: spec.times } };
            },
          ),
        ]
      : [],
  ),
);

/**
 * Fault schedules: up to 4 faults (two jobs' point faults and what leads to them), 1 to 3 jobs, 1 to 3 workers, 1 or 2 producers.
 * `scope`: the point actions the queue gets (action-scope.ts); without a network, none of the network's.
 */
export function scheduleArbitrary(scope: ExploreScope = NO_NETWORK): fc.Arbitrary<Schedule> {
  return fc.record({
    faults: fc.array(fc.oneof(pointFault(scope), worldFault), { minLength: 1, maxLength: 4 }),
    jobs: fc.array(fc.constantFrom(...Object.keys(EXPLORE_PLANS)), { minLength: 1, maxLength: 3 }),
    workers: fc.integer({ min: 1, max: 3 }),
    producers: fc.integer({ min: 1, max: 2 }),
  });
}
