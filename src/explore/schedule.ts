import fc from 'fast-check';
import { FAILPOINTS, INJECTED_ERROR_KINDS } from '../faults/points.js';
import { EXPLORE_PLANS } from './plans.js';
import { WORLD_FAIL_STATUSES } from '../world/faults.js';

/*
 * A fault schedule, as fast-check generates and shrinks it. The fields are in
 * the order shrinking should give them up: faults first (fewest faults), then
 * jobs, then workers and producers, so a counterexample shrinks to the smallest
 * cast that still breaks an invariant.
 */

/** The points a worker, the coordinator or a producer can be stopped at: every failpoint there is. */
const POINTS = FAILPOINTS;

export type PointFaultSpec =
  | { kind: 'point'; at: (typeof POINTS)[number]; action: 'crash' | 'exit' | 'pause' | 'delay'; attempt: number | null; first: number }
  | { kind: 'point'; at: (typeof POINTS)[number]; action: 'error'; error: (typeof INJECTED_ERROR_KINDS)[number]; attempt: number | null; first: number };

export type WorldFaultSpec =
  | { kind: 'world'; stepIndex: number; action: 'drop' | 'error_after_apply'; times: number }
  | { kind: 'world'; stepIndex: number; action: 'delay'; applied: boolean; times: number }
  | { kind: 'world'; stepIndex: number; action: 'fail'; status: (typeof WORLD_FAIL_STATUSES)[number]; times: number };

export interface Schedule {
  faults: Array<PointFaultSpec | WorldFaultSpec>;
  jobs: string[];
  workers: number;
  producers: number;
}

const attempt = fc.option(fc.integer({ min: 1, max: 2 }), { nil: null });
const first = fc.integer({ min: 1, max: 2 });

const pointFault: fc.Arbitrary<PointFaultSpec> = fc.oneof(
  fc.record({
    kind: fc.constant('point' as const),
    at: fc.constantFrom(...POINTS),
    action: fc.constantFrom('crash' as const, 'exit' as const, 'pause' as const, 'delay' as const),
    attempt,
    first,
  }),
  fc.record({
    kind: fc.constant('point' as const),
    at: fc.constantFrom(...POINTS),
    action: fc.constant('error' as const),
    error: fc.constantFrom(...INJECTED_ERROR_KINDS),
    attempt,
    first,
  }),
);

const worldFault: fc.Arbitrary<WorldFaultSpec> = fc.oneof(
  fc.record({ kind: fc.constant('world' as const), stepIndex: fc.nat(2), action: fc.constantFrom('drop' as const, 'error_after_apply' as const), times: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ kind: fc.constant('world' as const), stepIndex: fc.nat(2), action: fc.constant('delay' as const), applied: fc.boolean(), times: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ kind: fc.constant('world' as const), stepIndex: fc.nat(2), action: fc.constant('fail' as const), status: fc.constantFrom(...WORLD_FAIL_STATUSES), times: fc.integer({ min: 1, max: 3 }) }),
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
