import { DEFAULT_PARALLEL } from '../kernel/defaults.js';
import { allRuns, scenarioLabel } from './scenario-label.js';
import type { DrillReport, EarlierAttempt, ScenarioReport, StarvedSpan } from './schema.js';

/*
 * What every view says of the machine's load, in one wording: the time scale
 * the drill ran at and how it was chosen (given, or measured before the first
 * scenario), each starved span (its process and when it was not run, so a
 * reader can find it on the timeline and in that process's log), and each
 * earlier attempt of a scenario the machine starved and that ran again at a
 * larger scale. Starvation is the machine's doing, never a fault's nor the
 * queue's, and the words keep it apart from both.
 */

/** The advice every view gives for an inconclusive run: what would make it judgeable. */
export const INCONCLUSIVE_ADVICE = 'run it again on a quieter machine, at a larger --time-scale, or with --retry-inconclusive';

/** What an inconclusive verdict means, for a view to say once beside it. */
export const INCONCLUSIVE_MEANING =
  'the machine starved the drill: a starved span explains every finding, and no safety invariant broke; neither a pass nor a failure';

// The time of day to the millisecond: spans are short, and a drill runs within one day.
const clock = (at: string): string => at.slice(11, 23);

/** One span: "w1#2 510 ms (not run from 10:00:01.000 to 10:00:01.510)", or "(slow to start, until …)" for a start-up. */
export function spanText(span: StarvedSpan): string {
  return span.cause === 'start-up'
    ? `${span.process} ${span.ms} ms (slow to start, until ${clock(span.to)})`
    : `${span.process} ${span.ms} ms (not run from ${clock(span.from)} to ${clock(span.to)})`;
}

/** A scenario's starvation in one line ("3 starved spans, 710 ms in all; worst span …"), or null when nothing starved it. */
export function starvationText(starvation: ScenarioReport['starvation']): string | null {
  const { spans, totalMs, worst } = starvation;
  if (spans.length === 0 || worst === null) return null;
  return `${spans.length} starved span${spans.length === 1 ? '' : 's'}, ${totalMs} ms in all; worst span ${spanText(worst)}`;
}

/**
 * A drill's starvation in one line, for a summary: its worst span and the
 * scenario it starved, how many scenarios were starved at all, and, when
 * one was inconclusive, what to do. Null when nothing was starved.
 */
export function drillStarvationText(report: Pick<DrillReport, 'scenarios' | 'interruption' | 'summary'>): string | null {
  const starved = report.scenarios.filter((s) => s.starvation.worst !== null);
  if (starved.length === 0) return null;
  const worst = starved.reduce((a, b) => (b.starvation.worst!.ms > a.starvation.worst!.ms ? b : a));
  const { inconclusive } = report.summary;
  return (
    `the machine starved the drill: worst span ${spanText(worst.starvation.worst!)} in ${scenarioLabel(worst, allRuns(report))}` +
    `${starved.length > 1 ? ` (${starved.length} scenarios starved)` : ''}` +
    `${inconclusive > 0 ? `; ${inconclusive} inconclusive: ${INCONCLUSIVE_ADVICE}` : ''}`
  );
}

/**
 * The drill's time scale and how it was chosen, for a header: "time scale ×1.5
 * (auto: a process started in 589 ms on this machine, a timer fired 4 ms late;
 * every lease, timeout and delay stretched ×1.5)", "time scale ×1 (auto: this
 * machine was quiet: …)", "time scale ×2 (given; …)". Null for the scale 1
 * given, which stretches nothing and was nobody's choice to explain.
 */
export function timeScaleText(report: Pick<DrillReport, 'timeScale' | 'calibration'>): string | null {
  const { timeScale: scale, calibration } = report;
  const stretched = `every lease, timeout and delay stretched ×${scale}`;
  if (calibration === null || calibration === undefined) return scale === 1 ? null : `time scale ×${scale} (given; ${stretched})`;
  const measured = `a process started in ${calibration.startupMs} ms on this machine, a timer fired ${calibration.timerLatenessMs} ms late`;
  return scale === 1 ? `time scale ×1 (auto: this machine was quiet: ${measured})` : `time scale ×${scale} (auto: ${measured}; ${stretched})`;
}

/**
 * How many scenarios ran at once, and why, where a reader needs it to judge the timings: "4 scenarios at once (auto:
 * a quiet machine (…)); back to 2 after zombie-worker, which ran again". Null when the report does not say (older, merged).
 */
export function lanesText(report: Pick<DrillReport, 'lanes'>): string | null {
  const { lanes } = report;
  if (lanes === undefined) return null;
  const why = lanes.chosen === 'auto' ? `auto: ${lanes.why}` : 'given';
  const narrowed = lanes.narrowedAfter === null ? '' : `; back to ${DEFAULT_PARALLEL} after ${lanes.narrowedAfter}, which ran again`;
  return `${lanes.count} scenario${lanes.count === 1 ? '' : 's'} at once (${why})${narrowed}`;
}

/** The same in a few words, as a value for a CI property: "1.5 (auto: start 589 ms, timer 4 ms late)", "1 (given)". */
export function timeScaleValue(report: Pick<DrillReport, 'timeScale' | 'calibration'>): string {
  const { timeScale: scale, calibration } = report;
  if (calibration === null || calibration === undefined) return `${scale} (given)`;
  const measured = `start ${calibration.startupMs} ms, timer ${calibration.timerLatenessMs} ms late`;
  return `${scale} (auto${scale === 1 ? ', a quiet machine' : ''}: ${measured})`;
}

/**
 * One earlier attempt of a retried scenario, in plain text: "attempt 1 of 2:
 * inconclusive at time scale ×1.5, 8.4 s, run directory …: <its first
 * inconclusive line>". `n` counts from 1; `total` counts this run too.
 */
export function earlierAttemptText(attempt: EarlierAttempt, n: number, total: number): string {
  const first = attempt.inconclusive?.[0];
  return (
    `attempt ${n} of ${total}: ${attempt.verdict} at time scale ×${attempt.timeScale}, ${(attempt.durationMs / 1000).toFixed(1)} s, ` +
    `run directory ${attempt.runDir}${first !== undefined ? `: ${first}` : ''}`
  );
}

/** The last attempt of a retried scenario, this report's own, after its earlier ones: "attempt 2 of 2 (this run): pass at time scale ×3". */
export function lastAttemptText(scenario: Pick<ScenarioReport, 'earlierAttempts' | 'verdict' | 'timeScale'>): string {
  const total = (scenario.earlierAttempts?.length ?? 0) + 1;
  return `attempt ${total} of ${total} (this run): ${scenario.verdict} at time scale ×${scenario.timeScale}`;
}

/** Each earlier attempt and then this run, a line each; none when the scenario ran once. */
export function attemptLines(scenario: Pick<ScenarioReport, 'earlierAttempts' | 'verdict' | 'timeScale'>): string[] {
  const earlier = scenario.earlierAttempts ?? [];
  if (earlier.length === 0) return [];
  return [...earlier.map((attempt, i) => earlierAttemptText(attempt, i + 1, earlier.length + 1)), lastAttemptText(scenario)];
}
