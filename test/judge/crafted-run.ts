import { expect } from 'vitest';
import type { RuleStats } from '../../src/faults/fault-plan.js';
import type { ScenarioRun } from '../../src/judge/drill-record.js';
import { type Evidence, INVARIANT_IDS, type InvariantId } from '../../src/judge/evidence.js';
import { judgeScenario } from '../../src/judge/judge.js';
import { type ScenarioReport, ScenarioReportSchema } from '../../src/report/schema.js';
import type { ResolvedJob, ResolvedScenario } from '../../src/scenarios/resolve.js';
import { BUILT_IN_DEFAULTS, type Settings } from '../../src/scenarios/schema.js';

/*
 * A run built by hand: the evidence from the invariant tests' builder
 * (test/judge/invariants/evidence-builder.ts), wrapped in the ScenarioRun
 * a drill would hand the judge (src/judge/drill-record.ts), with faults
 * armed and fired (or not) as the test says.
 */

export interface RunOptions {
  /** The scenario's jobs; by default one per accepted key, as the drill planned them. */
  jobs?: ResolvedJob[];
  invariants?: InvariantId[];
  pointFaults?: RuleStats[];
  worldFaults?: ScenarioRun['worldFaults'];
  description?: string;
  ending?: ScenarioRun['ending'];
  error?: string | null;
  /** How many producers the scenario had. @default 1 */
  producers?: number;
}

export const META = { repeat: 1, replay: 'queue-drill run scenarios.yaml --only crafted --seed 7 --queue reference' };

/** The jobs a scenario would have planned for the evidence's accepted keys. */
export function plannedJobs(evidence: Evidence): ResolvedJob[] {
  return evidence.accepted.map((accepted, index) => ({
    n: index + 1,
    key: accepted.key,
    plan: accepted.plan,
    maxAttempts: evidence.jobs.find((job) => job.key === accepted.key)?.maxAttempts ?? 3,
    expect: accepted.expect,
  }));
}

/** The run a drill would hand the judge, around the given evidence. */
export function runOf(evidence: Evidence, options: RunOptions = {}): ScenarioRun {
  const pointFaults = options.pointFaults ?? [];
  const worldFaults = options.worldFaults ?? [];
  const scenario: ResolvedScenario = {
    name: 'crafted',
    description: options.description ?? 'a run built by hand',
    covers: null,
    settings: { ...structuredClone(BUILT_IN_DEFAULTS), producers: options.producers ?? 1 } as Settings,
    seed: 7,
    workers: [
      { id: 'w1', clockSkewMs: 0 },
      { id: 'w2', clockSkewMs: 0 },
    ],
    jobs: options.jobs ?? plannedJobs(evidence),
    pointFaults: pointFaults.map((f) => f.rule),
    worldFaults: worldFaults.map((f) => ({ spec: f.armed.spec, describe: f.describe })),
    invariants: options.invariants ?? [...INVARIANT_IDS],
    secrets: evidence.secrets,
  };
  return {
    scenario,
    queueVersion: 'reference 0.1.0 (sqlite)',
    runDir: '/runs/2026-08-25T10-00-00Z/crafted',
    store: '/runs/2026-08-25T10-00-00Z/crafted/queue.sqlite',
    ledger: '/runs/2026-08-25T10-00-00Z/crafted/ledger.db',
    evidence,
    pointFaults,
    worldFaults,
    ending: options.ending ?? 'at-rest',
    error: options.error ?? null,
    durationMs: 1234,
  };
}

/** Judges the run, and checks the entry is one the report schema accepts. */
export function judged(run: ScenarioRun): ScenarioReport {
  const report = judgeScenario(run, META);
  const parsed = ScenarioReportSchema.safeParse(report);
  expect(parsed.success, parsed.error?.message).toBe(true);
  return report;
}
