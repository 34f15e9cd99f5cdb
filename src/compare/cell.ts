import { notJudgedReason } from '../report/not-judged-reason.js';
import type { ScenarioReport } from '../report/schema.js';
import type { Cell, CellVerdict } from './schema.js';

/** One line saying why a scenario did not pass on its queue, or null when it passed. */
export function whyNotPassed(report: ScenarioReport): string | null {
  if (report.error !== null) return `error: ${report.error}`;
  if (report.notSupported !== null) return `not supported: ${report.notSupported}`;
  if (report.notJudged !== null) return `not judged: ${report.notJudged}`;
  if (report.interrupted !== null) return `interrupted: ${report.interrupted}`;
  // Before the breaches: an inconclusive scenario's breaches are liveness ones starvation explains, and its first line says which span.
  if (report.verdict === 'inconclusive') return `inconclusive (starved): ${report.inconclusive?.[0] ?? 'the machine starved the drill'}`;
  const broken = report.invariants.find((v) => v.status === 'broken');
  if (broken) return `${broken.id}: ${broken.evidence[0] ?? broken.statement}`;
  if (report.expectations.length > 0) return report.expectations[0]!;
  const wrong = report.jobs.find((job) => !job.matches);
  if (wrong) return `job ${wrong.id ?? '(none)'}: expected ${wrong.expected.status}, ended ${wrong.actual.status}`;
  if (report.verdict === 'not_judged') return `not judged: ${notJudgedReason(report) ?? ''}`;
  if (report.unfired.length > 0) return `vacuous: ${report.unfired[0]}`;
  if (report.nothingJudged.length > 0) return `vacuous: ${report.nothingJudged[0]}`;
  return null;
}

/** From the fault to the job settled again: the longest of the scenario's kills, or null when nothing was killed or settled. */
export function recoveryMs(report: ScenarioReport): number | null {
  const settled = report.recovery.map((r) => r.killToSettledMs).filter((ms): ms is number => ms !== null);
  return settled.length > 0 ? Math.max(...settled) : null;
}

/**
 * A scenario's runs on one queue (one per --repeat, each with its own seed)
 * as a cell of the matrix, held to what was expected of it. When the runs
 * disagree the cell is flaky, with every run's verdict: a matrix that gives
 * a different answer for the same question on another seed says so, never
 * picks one. A run the machine starved (inconclusive) says nothing of the
 * queue, so it does not make a cell flaky: the cell is what the judged runs
 * agree on, and its line names the starved ones; only a cell with no judged
 * run is inconclusive. The invariants a run could not judge are listed, so a
 * ✅ says exactly what it checked.
 */
export function cellOf(runs: readonly ScenarioReport[], expected: readonly CellVerdict[]): Cell {
  const first = runs[0];
  if (first === undefined) throw new Error('a cell needs at least one run');
  const starved = runs.filter((run) => run.verdict === 'inconclusive');
  // Some runs starved and some judged: the verdict is the judged ones'. All starved: the cell is inconclusive.
  const someStarved = starved.length > 0 && starved.length < runs.length;
  const judged = someStarved ? runs.filter((run) => run.verdict !== 'inconclusive') : runs;
  const verdicts = new Set(judged.map((run) => run.verdict));
  const verdict: CellVerdict = verdicts.size > 1 ? 'flaky' : judged[0]!.verdict;
  // The run that says most: the first judged one that did not pass.
  const telling = judged.find((run) => run.verdict !== 'pass') ?? judged[0]!;
  const seeds = runs.map((run) => `seed ${run.seed} ${run.verdict}`).join(', ');
  const why =
    verdict === 'flaky'
      ? `flaky: ${seeds}; ${whyNotPassed(telling) ?? ''}`.replace(/; $/, '')
      : someStarved
        ? `judged on ${judged.length} of ${runs.length} runs (${seeds}); ${whyNotPassed(telling) ?? whyNotPassed(starved[0]!)}`
        : whyNotPassed(telling);
  const notJudged = new Map<string, string>();
  for (const run of judged)
    for (const v of run.invariants) if (v.status === 'not_judged' && !notJudged.has(v.id)) notJudged.set(v.id, v.note ?? 'not judged');
  const recoveries = judged.map(recoveryMs).filter((ms): ms is number => ms !== null);
  return {
    scenario: first.name,
    queue: first.queue,
    verdict,
    broken: telling.invariants.filter((v) => v.status === 'broken').map((v) => ({ id: v.id, evidence: v.evidence[0] ?? v.statement })),
    why,
    notJudged: [...notJudged].map(([id, reason]) => ({ id, reason })) as Cell['notJudged'],
    checks: [...first.checks],
    recoveryMs: recoveries.length > 0 ? Math.max(...recoveries) : null,
    durationMs: runs.reduce((sum, run) => sum + run.durationMs, 0),
    runs: runs.map((run) => ({ seed: run.seed, verdict: run.verdict, why: whyNotPassed(run), runDir: run.runDir })),
    expected: [...expected],
    matched: expected.includes(verdict),
    runDir: telling.runDir,
  };
}

/** The cell of a scenario whose column never ran (its queue could not be reached): an error with the column's reason. */
export function columnErrorCell(scenario: string, queue: string, reason: string, expected: readonly CellVerdict[]): Cell {
  return {
    scenario,
    queue,
    verdict: 'error',
    broken: [],
    why: `error: ${reason}`,
    notJudged: [],
    checks: [],
    recoveryMs: null,
    durationMs: 0,
    runs: [],
    expected: [...expected],
    matched: expected.includes('error'),
    runDir: null,
  };
}
