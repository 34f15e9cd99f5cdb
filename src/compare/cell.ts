import type { ScenarioReport, ScenarioVerdict } from '../report/schema.js';
import type { Cell } from './schema.js';

/** One line saying why a scenario did not pass on its queue, or null when it passed. */
export function whyNotPassed(report: ScenarioReport): string | null {
  if (report.error !== null) return `error: ${report.error}`;
  if (report.notJudged !== null) return `not judged: ${report.notJudged}`;
  if (report.interrupted !== null) return `interrupted: ${report.interrupted}`;
  // Before the breaches: an inconclusive scenario's breaches are liveness ones starvation explains, and its first line says which span.
  if (report.verdict === 'inconclusive') return `inconclusive (starved): ${report.inconclusive?.[0] ?? 'the machine starved the drill'}`;
  const broken = report.invariants.find((v) => v.status === 'broken');
  if (broken) return `${broken.id}: ${broken.evidence[0] ?? broken.statement}`;
  if (report.expectations.length > 0) return report.expectations[0]!;
  const wrong = report.jobs.find((job) => !job.matches);
  if (wrong) return `job ${wrong.id ?? '(none)'}: expected ${wrong.expected.status}, ended ${wrong.actual.status}`;
  if (report.unfired.length > 0) return `vacuous: ${report.unfired[0]}`;
  if (report.nothingJudged.length > 0) return `vacuous: ${report.nothingJudged[0]}`;
  return null;
}

/** From the fault to the job settled again: the longest of the scenario's kills, or null when nothing was killed or settled. */
export function recoveryMs(report: ScenarioReport): number | null {
  const settled = report.recovery.map((r) => r.killToSettledMs).filter((ms): ms is number => ms !== null);
  return settled.length > 0 ? Math.max(...settled) : null;
}

/** A scenario's report on one queue as a cell of the matrix, held to what was expected of it. */
export function cellOf(report: ScenarioReport, expected: readonly ScenarioVerdict[]): Cell {
  return {
    scenario: report.name,
    queue: report.queue,
    verdict: report.verdict,
    broken: report.invariants.filter((v) => v.status === 'broken').map((v) => ({ id: v.id, evidence: v.evidence[0] ?? v.statement })),
    why: whyNotPassed(report),
    recoveryMs: recoveryMs(report),
    durationMs: report.durationMs,
    expected: [...expected],
    matched: expected.includes(report.verdict),
    runDir: report.runDir,
  };
}

/** The cell of a scenario whose column never ran (its queue could not be reached): an error with the column's reason. */
export function columnErrorCell(scenario: string, queue: string, reason: string, expected: readonly ScenarioVerdict[]): Cell {
  return {
    scenario,
    queue,
    verdict: 'error',
    broken: [],
    why: `error: ${reason}`,
    recoveryMs: null,
    durationMs: 0,
    expected: [...expected],
    matched: expected.includes('error'),
    runDir: null,
  };
}
