import type { InvariantId } from '../kernel/vocabulary.js';
import type { ScenarioReport } from '../report/schema.js';

/*
 * A failure is only as useful as its replay. A failing scenario's replay
 * command names the invariants it broke (`--expect-broken a,b`), and a run
 * given them says whether it broke exactly the same: reproduced, or not (a
 * race the replay lost, or a fix that changed what breaks).
 */

/** The invariants a scenario's run broke, in the report's order. */
export function brokenInvariants(report: ScenarioReport): InvariantId[] {
  return report.invariants.filter((verdict) => verdict.status === 'broken').map((verdict) => verdict.id);
}

/** The report with its replay naming what broke (when it failed on an invariant) and, if `expected` is given, the reproduction. */
export function withReproduction(report: ScenarioReport, expected?: readonly InvariantId[]): ScenarioReport {
  const broken = brokenInvariants(report);
  const replay = report.verdict === 'fail' && broken.length > 0 ? `${report.replay} --expect-broken ${broken.join(',')}` : report.replay;
  if (expected === undefined) return { ...report, replay };
  const same = new Set(expected);
  const reproduced = broken.length === same.size && broken.every((id) => same.has(id));
  return { ...report, replay, reproduction: { expected: [...expected], broken, reproduced } };
}
