import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenarios/load.js';
import { namedPlan } from '../../src/scenarios/plan-library.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';
import type { ScenarioFile } from '../../src/scenarios/schema.js';
import { CATALOGUE, isToolName } from '../../src/world/catalogue.js';
import { toolEffectKind } from '../../src/world/effect-kinds.js';

/*
 * The shipped drill (scenarios.yaml) as data: what it claims to cover, checked
 * without running it. Whether each scenario passes is the drill's business
 * (npm run drill, queue-drill selftest); here, that the file holds the
 * scenarios the docs promise, with expectations that follow the design.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const FILE: ScenarioFile = loadScenarioFile(join(ROOT, 'scenarios.yaml'));
type Scenario = ScenarioFile['scenarios'][number];
type Fault = Scenario['faults'][number];

/** A scenario's jobs one by one, as `job: N` counts them: plan steps, expected status and budget. */
function jobsOf(scenario: Scenario) {
  return scenario.jobs.flatMap((group) => {
    const plan = typeof group.plan === 'string' ? namedPlan(group.plan, FILE.plans)! : group.plan;
    const expect = typeof group.expect === 'string' ? group.expect : group.expect.status;
    const maxAttempts = group.max_attempts ?? scenario.max_attempts ?? FILE.defaults.max_attempts ?? 3;
    return Array.from({ length: group.count }, () => ({ steps: plan.steps, expect, maxAttempts }));
  });
}

/** The tool a world fault on a step calls, or null for a fault matched otherwise. */
function toolOf(scenario: Scenario, fault: Fault): string | null {
  if ('at' in fault || fault.world.step === undefined) return null;
  const job = jobsOf(scenario)[(fault.world.job ?? 1) - 1]!;
  return job.steps.find((s) => s.step_id === fault.world.step)!.tool;
}

const coordinated = (s: Scenario) => s.coordinator ?? FILE.defaults.coordinator ?? true;

describe('the shipped scenarios (scenarios.yaml)', () => {
  it('load and resolve, each saying what it covers', () => {
    expect(resolveScenarios(FILE, { seed: 1 })).toHaveLength(FILE.scenarios.length);
    for (const scenario of FILE.scenarios) expect(scenario.covers, scenario.name).toMatch(/\S/);
  });

  it('are as many as the README says', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(Number(/The (\d+) shipped scenarios/.exec(readme)?.[1])).toBe(FILE.scenarios.length);
  });

  // Per the design: an unknown outcome on an effect that is not idempotent is looked up, or goes to review; never retried blind.
  it('lose a response on every kind of effect the catalogue has, with and without a lookup, expecting what the design says', () => {
    const wanted = new Set(
      Object.values(CATALOGUE)
        .filter((tool) => tool.hasSideEffect && tool.compensationOf === null)
        .map((tool) => `${toolEffectKind(tool.name)} lookup=${tool.lookup}`),
    );
    const seen = new Set<string>();
    for (const scenario of FILE.scenarios) {
      for (const fault of scenario.faults) {
        const tool = toolOf(scenario, fault);
        if ('at' in fault || fault.action !== 'drop' || tool === null || !isToolName(tool)) continue;
        const meta = CATALOGUE[tool];
        seen.add(`${toolEffectKind(tool)} lookup=${meta.lookup}`);
        const expected = !meta.idempotent && !meta.lookup ? 'review' : 'done';
        expect(jobsOf(scenario)[(fault.world.job ?? 1) - 1]!.expect, `${scenario.name}: a lost ${tool} response`).toBe(expected);
      }
    }
    expect([...seen].sort()).toEqual([...wanted].sort());
  });

  it('hold a poison job (a crash on every attempt) with the coordinator and without it, while the other jobs are done', () => {
    const poisoned = FILE.scenarios.filter((s) =>
      s.faults.some((f) => 'at' in f && f.action === 'crash' && f.first === undefined && f.probability === undefined && f.where?.job !== undefined),
    );
    expect(new Set(poisoned.map(coordinated))).toEqual(new Set([true, false]));
    for (const scenario of poisoned) {
      const fault = scenario.faults.find((f) => 'at' in f && f.first === undefined) as Extract<Fault, { at: unknown }>;
      const jobs = jobsOf(scenario);
      expect(jobs.length, scenario.name).toBeGreaterThan(1);
      expect(
        jobs.map((job) => job.expect),
        scenario.name,
      ).toEqual(jobs.map((_, index) => (index + 1 === fault.where!.job ? 'review' : 'done')));
    }
  });

  it('retry a failing service (503 or 429) to done while attempts last, and send it to review past them', () => {
    const ends = FILE.scenarios.flatMap((scenario) =>
      scenario.faults.flatMap((fault) => {
        const status = (fault as Record<string, unknown>).status;
        if ('at' in fault || fault.action !== 'fail' || (status !== 503 && status !== 429)) return [];
        const job = jobsOf(scenario)[(fault.world.job ?? 1) - 1]!;
        const times = fault.times ?? 1;
        expect(job.expect, `${scenario.name}: ${times} failures in ${job.maxAttempts} attempts`).toBe(times < job.maxAttempts ? 'done' : 'review');
        return [job.expect];
      }),
    );
    expect(new Set(ends)).toEqual(new Set(['done', 'review']));
  });
});
