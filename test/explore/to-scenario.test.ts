import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Schedule } from '../../src/explore/schedule.js';
import { exploreFile, scheduleScenario } from '../../src/explore/to-scenario.js';
import { FaultPlan } from '../../src/faults/fault-plan.js';
import { seededRandom } from '../../src/kernel/random.js';
import { parseScenarioText } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';

/** A schedule as explore writes it out (YAML, as a counterexample file) and `run` reads it back. */
function roundTrip(schedule: Schedule) {
  const text = stringify(exploreFile([scheduleScenario(schedule, 'explored', 'a schedule')]));
  const file = parseScenarioText(text, 'counterexample.yaml');
  return { text, file, scenario: resolveScenarios(file, { seed: 3 })[0]! };
}

const schedule = (first: number | null): Schedule => ({
  faults: [
    { kind: 'point', at: 'after_write', action: 'crash', fields: {}, stepIndex: 1, attempt: null, first, job: 0 },
    { kind: 'world', job: 0, stepIndex: 0, action: 'fail', fields: { status: 503 }, times: 2 },
  ],
  jobs: ['write-then-email'],
  workers: 2,
  producers: 1,
});

describe('a schedule written as a scenarios file', () => {
  it('keeps a fault on every hit: no first in the file, none in the rule, and it fires at each hit', () => {
    const { text, file, scenario } = roundTrip(schedule(null));
    expect(text).not.toMatch(/first:/);
    expect(file.scenarios[0]!.faults[0]).toEqual({ at: 'after_write', where: { job: 1, step: 'email' }, action: 'crash' });
    expect(scenario.pointFaults).toEqual([
      { id: 'f1', point: 'after_write', action: 'crash', where: { step: 'email', jobKey: scenario.jobs[0]!.key } },
    ]);
    const plan = new FaultPlan(scenario.pointFaults, seededRandom(1));
    const hits = [1, 2, 3, 4].map(
      (attempt) => plan.decide({ point: 'after_write', worker: 'w1', attempt, step: 'email', jobKey: scenario.jobs[0]!.key })?.rule.id ?? '-',
    );
    expect(hits).toEqual(['f1', 'f1', 'f1', 'f1']);
  });

  it('keeps a bounded first, and the world fault on the first job', () => {
    const { file, scenario } = roundTrip(schedule(2));
    expect(file.scenarios[0]!.faults).toEqual([
      { at: 'after_write', first: 2, where: { job: 1, step: 'email' }, action: 'crash' },
      { world: { step: 'write', job: 1 }, times: 2, action: 'fail', status: 503 },
    ]);
    expect(scenario.pointFaults[0]!.first).toBe(2);
    expect(scenario.worldFaults[0]!.describe).toBe('fail 503 on job 1 step write');
  });
});
