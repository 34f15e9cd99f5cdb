import type { ScenarioReport } from './schema.js';

/**
 * Why a scenario was not judged or is not supported, in one line, the same in
 * every view: the feature the queue lacks, else why it could not run the
 * scenario as asked, else each invariant the scenario exists to check that it
 * could not judge. Null when it was judged.
 */
export function notJudgedReason(scenario: Pick<ScenarioReport, 'notSupported' | 'notJudged' | 'unjudgedChecks'>): string | null {
  if (scenario.notSupported !== null) return scenario.notSupported;
  if (scenario.notJudged !== null) return scenario.notJudged;
  return scenario.unjudgedChecks.length > 0 ? scenario.unjudgedChecks.join('; ') : null;
}
