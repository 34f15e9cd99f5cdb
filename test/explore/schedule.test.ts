import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverSchedules } from '../../src/explore/cover.js';
import { everyHitAllowed, type PointFaultSpec, type Schedule, scheduleArbitrary } from '../../src/explore/schedule.js';
import { exploreFile, scheduleScenario } from '../../src/explore/to-scenario.js';
import { STEP_FAILPOINTS } from '../../src/faults/points.js';
import { ScenarioFileSchema } from '../../src/scenarios/schema.js';

const points = (schedule: Schedule) => schedule.faults.filter((f): f is PointFaultSpec => f.kind === 'point');

describe("explore's schedules", () => {
  const drawn = fc.sample(scheduleArbitrary(), { seed: 5, numRuns: 2_000 });

  it('arm a fault on every hit now and then, never where no attempt bounds it', () => {
    const faults = drawn.flatMap(points);
    const everyHit = faults.filter((f) => f.first === null);
    expect(everyHit.length / faults.length).toBeGreaterThan(0.1);
    expect(everyHit.length / faults.length).toBeLessThan(0.4);
    expect(new Set(everyHit.map((f) => f.at)).has('after_claim')).toBe(true);
    expect(everyHit.filter((f) => !everyHitAllowed(f.at))).toEqual([]);
    expect(everyHitAllowed('enqueue') || everyHitAllowed('during_compensation')).toBe(false);
  });

  it('name a step only at the points reached for a step', () => {
    const named = drawn.flatMap(points).filter((f) => f.stepIndex !== null);
    expect(named.length).toBeGreaterThan(0);
    for (const fault of named) expect(STEP_FAILPOINTS).toContain(fault.at);
  });

  it('each make a valid scenarios file', () => {
    for (const schedule of [...drawn.slice(0, 300), ...coverSchedules(9)]) {
      expect(ScenarioFileSchema.safeParse(exploreFile([scheduleScenario(schedule, 'x', 'x')])).success).toBe(true);
    }
  });
});

describe('shrinking', () => {
  const hasPoint = (at: string) => (schedule: Schedule) => !points(schedule).some((f) => f.at === at);

  it('takes a drawn fault on every hit toward a bounded first, and the cast to one job, one worker, one producer', () => {
    const details = fc.check(fc.property(scheduleArbitrary(), hasPoint('after_write')), { seed: 11, numRuns: 500 });
    expect(details.failed).toBe(true);
    const [schedule] = details.counterexample!;
    expect(schedule).toMatchObject({ jobs: ['write-file'], workers: 1, producers: 1 });
    expect(schedule.faults).toHaveLength(1);
    expect(schedule.faults[0]).toMatchObject({ kind: 'point', at: 'after_write', first: 1, attempt: null, stepIndex: null });
  });

  // A covering schedule is handed to fast-check, not drawn: it has no context to shrink by, and must shrink all the same.
  it('shrinks a handed schedule with an every-hit fault like a drawn one', () => {
    const handed: Schedule = {
      faults: [
        { kind: 'world', job: 0, stepIndex: 1, action: 'delay', fields: { ms: 1_000, applied: true }, times: 2 },
        { kind: 'point', at: 'on_timeout', action: 'error', fields: { kind: 'permanent' }, stepIndex: 1, attempt: 2, first: null, job: 0 },
      ],
      jobs: ['three-step', 'release', 'charge'],
      workers: 3,
      producers: 2,
    };
    expect(scheduleArbitrary().canShrinkWithoutContext(handed)).toBe(true);
    const details = fc.check(fc.property(scheduleArbitrary(), hasPoint('on_timeout')), { seed: 1, numRuns: 1, examples: [[handed]] });
    expect(details.failed).toBe(true);
    expect(details.numShrinks).toBeGreaterThan(0);
    expect(details.counterexample![0]).toEqual({
      faults: [{ kind: 'point', at: 'on_timeout', action: 'error', fields: { kind: 'permanent' }, stepIndex: null, attempt: null, first: 1, job: 0 }],
      jobs: ['write-file'],
      workers: 1,
      producers: 1,
    });
  });

  it('can shrink every covering schedule, whatever the seed', () => {
    for (const seed of [1, 2, 3])
      for (const schedule of coverSchedules(seed)) expect(scheduleArbitrary().canShrinkWithoutContext(schedule)).toBe(true);
  });
});
