import fc from 'fast-check';
import { type FaultActionName, POINT_FAULT_ACTIONS } from '../faults/actions/index.js';
import { FAILPOINTS, type FailpointName } from '../faults/points.js';
import { WORLD_FAULT_ACTIONS, type WorldFaultActionName } from '../world/fault-actions/index.js';
import { EXPLORE_PLANS } from './plans.js';

/*
 * A fault schedule, as fast-check generates and shrinks it. The fields are in
 * the order shrinking should give them up: faults first (fewest faults), then
 * jobs, then workers and producers, so a counterexample shrinks to the smallest
 * cast that still breaks an invariant.
 */

/** A fault at a point: any failpoint, any action explore draws (each action says how it draws its fields). */
export interface PointFaultSpec {
  kind: 'point';
  at: FailpointName;
  action: FaultActionName;
  fields: Record<string, unknown>;
  attempt: number | null;
  first: number;
}

/** A fault on the world's calls of one step of the first job: any world action explore draws (each says how it draws its fields). */
export interface WorldFaultSpec {
  kind: 'world';
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

const attempt = fc.option(fc.integer({ min: 1, max: 2 }), { nil: null });
const first = fc.integer({ min: 1, max: 2 });

const pointFault: fc.Arbitrary<PointFaultSpec> = fc.oneof(
  ...POINT_FAULT_ACTIONS.flatMap((action) =>
    action.explore
      ? [
          fc.record({
            kind: fc.constant('point' as const),
            at: fc.constantFrom(...FAILPOINTS),
            action: fc.constant(action.name as FaultActionName),
            fields: action.explore(fc),
            attempt,
            first,
          }),
        ]
      : [],
  ),
);

const worldFault: fc.Arbitrary<WorldFaultSpec> = fc.oneof(
  ...WORLD_FAULT_ACTIONS.flatMap((action) =>
    action.explore
      ? [
          fc.record({ stepIndex: fc.nat(2), drawn: action.explore(fc) }).map(
            ({ stepIndex, drawn: { times, ...fields } }): WorldFaultSpec => ({
              kind: 'world',
              stepIndex,
              action: action.name as WorldFaultActionName,
              fields,
              times,
            }),
          ),
        ]
      : [],
  ),
);

/** Fault schedules: up to 3 faults, 1 to 3 jobs, 1 to 3 workers, 1 or 2 producers. */
export function scheduleArbitrary(): fc.Arbitrary<Schedule> {
  return fc.record({
    faults: fc.array(fc.oneof(pointFault, worldFault), { minLength: 1, maxLength: 3 }),
    jobs: fc.array(fc.constantFrom(...Object.keys(EXPLORE_PLANS)), { minLength: 1, maxLength: 3 }),
    workers: fc.integer({ min: 1, max: 3 }),
    producers: fc.integer({ min: 1, max: 2 }),
  });
}
