import { type FailureReason, failureReason } from '../failure-reason.js';
import { allRuns, scenarioLabel } from '../scenario-label.js';
import type { DrillReport, ScenarioReport } from '../schema.js';
import { evidenceTargets, expectationTargets } from './evidence-links.js';
import { type Layout, layoutScenario } from './lanes.js';

/*
 * What report.html works out once per scenario and shows in several places
 * (the summary's row, "what broke first", the scenario's section): its label,
 * why it did not pass, its timeline's layout, and which marks are evidence
 * of a finding (of a broken invariant, by the lines that name them; of a job
 * that ended wrong, where it ended).
 */

/** One scenario as the page shows it. */
export interface ScenarioView {
  scenario: ScenarioReport;
  /** Its place in the report: its section's anchor (anchorOf) and its marks' ids, whatever order the page lists it in. */
  index: number;
  label: string;
  reason: FailureReason | null;
  layout: Layout;
  /** The marks the evidence of its broken invariants names. */
  invariantMarks: ReadonlySet<string>;
  /** Where each job that did not end as expected ended. */
  expectationMarks: readonly string[];
  /** Every mark that is evidence of a finding: drawn highlighted. */
  highlighted: ReadonlySet<string>;
}

/**
 * Each scenario's view as last made, by the scenario object: a drill writes its report after every verdict,
 * each time with every scenario before it (the same objects, at the same place, under the same label).
 */
const made = new WeakMap<ScenarioReport, ScenarioView>();

/** The view of the scenario at `index` of `report`. */
export function scenarioView(report: DrillReport, index: number): ScenarioView {
  const scenario = report.scenarios[index]!;
  const label = scenarioLabel(scenario, allRuns(report));
  const known = made.get(scenario);
  if (known?.index === index && known.label === label) return known;
  const view = makeView(scenario, index, label);
  made.set(scenario, view);
  return view;
}

function makeView(scenario: ScenarioReport, index: number, label: string): ScenarioView {
  const lines = scenario.invariants.filter((v) => v.status === 'broken').flatMap((v) => v.evidence);
  const invariantMarks = new Set(lines.flatMap((line) => evidenceTargets(line, scenario, index)));
  const expectationMarks = expectationTargets(scenario, index);
  return {
    scenario,
    index,
    label,
    reason: failureReason(scenario),
    layout: layoutScenario(scenario, index),
    invariantMarks,
    expectationMarks,
    highlighted: new Set([...invariantMarks, ...expectationMarks]),
  };
}
