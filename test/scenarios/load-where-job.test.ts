import { describe, expect, test } from 'vitest';
import { FaultPlan } from '../../src/faults/fault-plan.js';
import { seededRandom } from '../../src/kernel/random.js';
import { parseScenarioText, ScenarioFileError } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';

/*
 * `where: { job: N }` on a point fault: the scenario's Nth job (as a world
 * fault counts them), resolved to that job's key, since the queue gives ids
 * only at enqueue. What makes a poison job among healthy ones expressible.
 */

const text = (job: number) =>
  [
    'version: 1',
    'plans:',
    '  p: { steps: [{ step_id: s, tool: write_file, has_side_effect: true, idempotent: true, reversible: false, retry_policy: auto, compensation: null, requires_approval: false }] }',
    'scenarios:',
    '  - name: poison',
    '    description: d',
    '    jobs: [{ plan: p, expect: done }, { plan: p, count: 2, expect: review }]',
    `    faults: [{ at: after_claim, action: crash, where: { job: ${job}, attempt: 2 } }]`,
  ].join('\n');

describe('a point fault limited to one job', () => {
  test("resolves to that job's key, keeping the other limits, and no first: every hit", () => {
    const [scenario] = resolveScenarios(parseScenarioText(text(3), 'poison.yaml'), { seed: 1 });
    const [rule] = scenario!.pointFaults;
    expect(rule).toEqual({ id: 'f1', point: 'after_claim', action: 'crash', where: { attempt: 2, jobKey: scenario!.jobs[2]!.key } });
    // The three jobs have three keys: the rule fires on job 3's hits, every time, and on no other job's.
    const plan = new FaultPlan(scenario!.pointFaults, seededRandom(1));
    const hit = (n: number) => plan.decide({ point: 'after_claim', worker: 'w1', jobKey: scenario!.jobs[n]!.key, attempt: 2 })?.rule.id ?? '-';
    expect([hit(0), hit(1), hit(2), hit(2), hit(2)]).toEqual(['-', '-', 'f1', 'f1', 'f1']);
  });

  test('naming a job the scenario does not have is refused when the file is read, at its line, with the count', () => {
    expect(() => parseScenarioText(text(4), 'poison.yaml')).toThrow(ScenarioFileError);
    expect(() => parseScenarioText(text(4), 'poison.yaml')).toThrow(
      /poison\.yaml:\d+:\d+ scenarios\[0\]\.faults\[0\]\.where\.job: no job 4: this scenario has 3/,
    );
  });

  test('job 0 is refused when the file is read', () => {
    expect(() => parseScenarioText(text(0), 'poison.yaml')).toThrow(/where\.job/);
  });
});
