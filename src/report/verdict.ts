import { EXIT } from '../kernel/errors.js';
import { INVARIANT_KINDS } from '../kernel/vocabulary.js';
import type { ReportSummary, ScenarioReport, ScenarioVerdict } from './schema.js';

/*
 * How a scenario's verdict follows from what the drill found. The first cause
 * wins, in this order: a harness failure makes the evidence untrustworthy
 * (error); a broken safety invariant is a finding on any machine (fail), but
 * for a stale call a world without fencing applied from a holder starved past
 * its lease (src/judge/starved-stale-calls.ts); when the machine starved
 * the drill and a starved span explains every other finding
 * (src/judge/starvation.ts), the run is inconclusive: never a
 * pass, never blamed on the queue; a broken liveness invariant or a job that
 * ended wrong is a finding whatever else happened (fail); an armed fault that never fired, or an invariant that
 * had nothing to judge where the scenario should have given it something,
 * means the drill did not test what it claims to, so it has not passed
 * (vacuous); else pass. A scenario the queue refused before anything ran
 * (a lease below its minimum) is not judged: it has no evidence either way;
 * one that needs a feature the queue lacks (a compensator) is not supported.
 * A run that could not judge an invariant the scenario exists to check (the
 * queue keeps no record of it) is not judged either, unless it failed:
 * whatever else held, it did not test what it is for.
 * A scenario the harness was stopped in before it reached rest (Ctrl-C) is
 * interrupted: a half-run's jobs are still on their way, so what they show
 * is neither a breach nor a pass.
 */

/** The verdict a scenario's contents call for. */
export function scenarioVerdict(
  scenario: Pick<
    ScenarioReport,
    | 'error'
    | 'notJudged'
    | 'notSupported'
    | 'unjudgedChecks'
    | 'interrupted'
    | 'inconclusive'
    | 'invariants'
    | 'jobs'
    | 'expectations'
    | 'unfired'
    | 'nothingJudged'
  >,
): ScenarioVerdict {
  if (scenario.error !== null) return 'error';
  if (scenario.notSupported !== null) return 'not_supported';
  if (scenario.notJudged !== null) return 'not_judged';
  if (scenario.interrupted !== null) return 'interrupted';
  const starved = scenario.inconclusive ?? [];
  // The one safety breach starvation explains: single-holder's stale calls a world without fencing applied, when the
  // judge's lines say so (src/judge/starved-stale-calls.ts).
  const explained = (v: { id: string }) => v.id === 'single-holder' && starved.some((line) => line.startsWith('single-holder: '));
  if (scenario.invariants.some((v) => v.status === 'broken' && INVARIANT_KINDS[v.id] === 'safety' && !explained(v))) return 'fail';
  if (starved.length > 0) return 'inconclusive';
  if (scenario.invariants.some((v) => v.status === 'broken') || scenario.expectations.length > 0 || scenario.jobs.some((j) => !j.matches))
    return 'fail';
  if (scenario.unjudgedChecks.length > 0) return 'not_judged';
  if (scenario.unfired.length > 0 || scenario.nothingJudged.length > 0) return 'vacuous';
  return 'pass';
}

/**
 * How many scenarios got each verdict, how many never started (an interrupted
 * drill's), and how many invariant verdicts held, broke, or could not be judged.
 */
export function summarize(scenarios: ReadonlyArray<Pick<ScenarioReport, 'verdict' | 'invariants'>>, notStarted = 0): ReportSummary {
  const summary: ReportSummary = {
    scenarios: scenarios.length,
    passed: 0,
    failed: 0,
    vacuous: 0,
    inconclusive: 0,
    notJudged: 0,
    notSupported: 0,
    interrupted: 0,
    errors: 0,
    notStarted,
    invariants: { held: 0, broken: 0, notJudged: 0 },
  };
  for (const { verdict, invariants } of scenarios) {
    for (const v of invariants) {
      if (v.status === 'held') summary.invariants.held++;
      else if (v.status === 'broken') summary.invariants.broken++;
      else summary.invariants.notJudged++;
    }
    switch (verdict) {
      case 'pass':
        summary.passed++;
        break;
      case 'fail':
        summary.failed++;
        break;
      case 'vacuous':
        summary.vacuous++;
        break;
      case 'inconclusive':
        summary.inconclusive++;
        break;
      case 'not_judged':
        summary.notJudged++;
        break;
      case 'not_supported':
        summary.notSupported++;
        break;
      case 'interrupted':
        summary.interrupted++;
        break;
      case 'error':
        summary.errors++;
        break;
      default: {
        const unknown: never = verdict;
        throw new Error(`unknown verdict ${String(unknown)}`);
      }
    }
  }
  return summary;
}

/**
 * Whether a drill succeeded: every scenario the queue could run passed, and at
 * least one ran (a drill the queue refused whole has shown nothing).
 */
export function allJudgedPassed(summary: Pick<ReportSummary, 'scenarios' | 'passed' | 'notJudged' | 'notSupported' | 'notStarted'>): boolean {
  return summary.passed > 0 && summary.passed + summary.notJudged + summary.notSupported === summary.scenarios && summary.notStarted === 0;
}

/**
 * A drill's exit code from its summary: 3 when the harness failed (a scenario's
 * error) or the drill was interrupted, 0 when every scenario the queue could run
 * passed and nothing regressed against a baseline, 4 when nothing failed but
 * the machine starved some scenario past judging (inconclusive: run it again on
 * a quieter machine, at a larger --time-scale, or with --retry-inconclusive),
 * else 1. A run and a merge of shard reports both end by it, so a merged drill
 * ends as one run would.
 */
export function drillExitCode(
  summary: Pick<
    ReportSummary,
    'scenarios' | 'passed' | 'failed' | 'vacuous' | 'inconclusive' | 'notJudged' | 'notSupported' | 'errors' | 'notStarted'
  >,
  options: { interrupted: boolean; regressed: boolean },
): 0 | 1 | 3 | 4 {
  if (options.interrupted || summary.errors > 0) return EXIT.harnessFailed;
  if (options.regressed || summary.failed > 0 || summary.vacuous > 0) return EXIT.violated;
  if (allJudgedPassed(summary)) return EXIT.ok;
  const set = summary.passed + summary.notJudged + summary.notSupported + summary.inconclusive;
  return summary.inconclusive > 0 && set === summary.scenarios && summary.notStarted === 0 ? EXIT.inconclusive : EXIT.violated;
}
