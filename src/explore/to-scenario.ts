import type { ScenarioFile } from '../scenarios/schema.js';
import { EXPLORE_PLANS } from './plans.js';
import type { Schedule } from './schedule.js';

/** Timings every explored scenario uses: short leases, and faults that outlast them. */
export const EXPLORE_SETTINGS = {
  lease_ms: 300,
  skew_margin_ms: 50,
  call_timeout_ms: 300,
  no_progress_ms: 3_000,
  timeout_ms: 15_000,
} as const;

type ScenarioEntry = ScenarioFile['scenarios'][number];

/** One scenario of scenarios.yaml's format that runs the schedule: what explore runs and writes out. */
export function scheduleScenario(schedule: Schedule, name: string, description: string): ScenarioEntry {
  const faults = schedule.faults.map((fault) => {
    // Each fault is limited to one job (1-based in a scenario), and names a step of that job's plan.
    const job = (fault.job % schedule.jobs.length) + 1;
    const plan = EXPLORE_PLANS[schedule.jobs[job - 1]!]!;
    if (fault.kind === 'world') {
      const step = plan.steps[fault.stepIndex % plan.steps.length]!.step_id;
      return { world: { step, job }, times: fault.times, action: fault.action, ...fault.fields };
    }
    const limits = {
      job,
      ...(fault.stepIndex === null ? {} : { step: plan.steps[fault.stepIndex % plan.steps.length]!.step_id }),
      ...(fault.attempt === null ? {} : { attempt: fault.attempt }),
    };
    // No `first`: the fault fires on every hit, as the schedule says.
    return {
      at: fault.at,
      ...(fault.first === null ? {} : { first: fault.first }),
      where: limits,
      action: fault.action,
      ...fault.fields,
    };
  });
  return {
    name,
    description,
    workers: schedule.workers,
    producers: schedule.producers,
    jobs: schedule.jobs.map((plan) => ({ plan, count: 1, expect: 'any' as const })),
    faults,
    invariants: 'all',
  } as ScenarioEntry;
}

/** A whole scenarios file holding explored scenarios, with the plans they use. */
export function exploreFile(scenarios: ScenarioEntry[]): ScenarioFile {
  const used = new Set(scenarios.flatMap((s) => s.jobs.map((j) => j.plan as string)));
  return {
    version: 1,
    defaults: { ...EXPLORE_SETTINGS },
    plans: Object.fromEntries(Object.entries(EXPLORE_PLANS).filter(([name]) => used.has(name))),
    scenarios,
  } as ScenarioFile;
}
