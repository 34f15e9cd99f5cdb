import type { DrillReport, ScenarioReport } from './schema.js';

/** How every view names one run of a scenario: its name, and "run N" when the report holds several runs of it (--repeat). */
export function scenarioLabel(
  scenario: Pick<ScenarioReport, 'name' | 'repeat'>,
  all: ReadonlyArray<Pick<ScenarioReport, 'name' | 'repeat'>>,
): string {
  // Only when repeated: a lone run keeps its plain name, so CI history lines up across runs with and without --repeat.
  const repeated = all.some((other) => other.name === scenario.name && other.repeat !== scenario.repeat);
  return repeated ? `${scenario.name} (run ${scenario.repeat})` : scenario.name;
}

/** Every run the drill had to do, those it ran and those an interruption kept from starting: what labels are made against. */
export function allRuns(report: Pick<DrillReport, 'scenarios' | 'interruption'>): Array<Pick<ScenarioReport, 'name' | 'repeat' | 'queue'>> {
  return [...report.scenarios, ...(report.interruption?.notStarted ?? [])];
}
