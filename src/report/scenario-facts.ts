import type { FaultReport, JobReport, ScenarioReport, Verdict } from './schema.js';

/*
 * A scenario's facts as a summary groups them, for the views that summarise
 * (report.md, junit.xml): each fault's limits, jobs that ended alike, the
 * invariants by how they came out. Plain data and plain text; each view
 * formats them its own way.
 */

/** A point fault's limits in words: its argument, where it is limited to, the first N hits or every hit, its probability. */
export function faultLimits(fault: FaultReport): string[] {
  return [
    ...Object.entries(fault.arg ?? {}).map(([key, value]) => `${key}=${String(value)}`),
    ...Object.entries(fault.where).map(([key, value]) => `${key}=${String(value)}`),
    fault.first !== undefined ? `first ${fault.first} hit${fault.first === 1 ? '' : 's'}` : 'every hit',
    ...(fault.probability !== undefined ? [`probability ${fault.probability}`] : []),
  ];
}

/** Jobs that ended alike (the same expectation, end, attempts, and whether something was applied twice), in the order they first appear. */
export function jobGroups(jobs: readonly JobReport[]): JobReport[][] {
  const groups = new Map<string, JobReport[]>();
  for (const job of jobs) {
    const key = JSON.stringify([job.expected, job.actual, job.matches, job.attempts, job.maxAttempts, job.duplicatedEffects, job.located]);
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  return [...groups.values()];
}

/** The invariants by outcome: broken, held on something, held on nothing (nothing to judge), and not judged by reason. */
export interface InvariantOutcomes {
  broken: Verdict[];
  held: Verdict[];
  nothingToJudge: Verdict[];
  /** Not judged, grouped by the reason given (one reason is usually shared by several). */
  notJudged: Array<{ why: string; verdicts: Verdict[] }>;
}

/** Sorts a scenario's verdicts by outcome (see InvariantOutcomes). */
export function invariantOutcomes(invariants: readonly Verdict[]): InvariantOutcomes {
  const notJudged = new Map<string, Verdict[]>();
  for (const v of invariants.filter((v) => v.status === 'not_judged')) {
    const why = v.note ?? 'the queue cannot give the evidence it needs';
    notJudged.set(why, [...(notJudged.get(why) ?? []), v]);
  }
  return {
    broken: invariants.filter((v) => v.status === 'broken'),
    held: invariants.filter((v) => v.status === 'held' && v.judged > 0),
    nothingToJudge: invariants.filter((v) => v.status === 'held' && v.judged === 0),
    notJudged: [...notJudged].map(([why, verdicts]) => ({ why, verdicts })),
  };
}

/** The jobs a finding is about: each that did not end as expected (unless the run was interrupted), and each the evidence names. */
export function jobsConcerned(scenario: Pick<ScenarioReport, 'jobs' | 'invariants' | 'interrupted'>): JobReport[] {
  const evidence = scenario.invariants.flatMap((v) => v.evidence).join('\n');
  const named = (job: JobReport) => job.id !== null && new RegExp(`\\bjob ${job.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(evidence);
  return scenario.jobs.filter((job) => (scenario.interrupted === null && !job.matches) || named(job));
}
