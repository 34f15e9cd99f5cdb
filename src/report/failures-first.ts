import type { ScenarioReport, ScenarioVerdict } from './schema.js';

/*
 * The order a summary lists scenarios in, so what needs a reader comes first:
 * failures (a finding against the queue, or the harness failing), then
 * inconclusive runs (the machine starved them), then vacuous ones (the drill
 * did not test what it claims to), then the rest in the report's own order.
 * Only the listing moves: a scenario keeps its place in the report, which
 * names its section (anchorOf), so links from elsewhere stay right.
 */

const RANK: Partial<Record<ScenarioVerdict, number>> = { fail: 0, error: 0, inconclusive: 1, vacuous: 2 };
const REST = 3;

/** The report's indices of `scenarios`, failures first (stable within a rank). */
export function failuresFirst(scenarios: readonly Pick<ScenarioReport, 'verdict'>[]): number[] {
  const rank = (i: number) => RANK[scenarios[i]!.verdict] ?? REST;
  return scenarios.map((_, i) => i).sort((a, b) => rank(a) - rank(b) || a - b);
}

/** Whether a verdict is one "what broke first" speaks of: a failure, a starved run, a vacuous one. */
export function isFinding(verdict: ScenarioVerdict): boolean {
  return (RANK[verdict] ?? REST) < REST;
}
