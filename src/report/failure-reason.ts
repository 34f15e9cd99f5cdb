import { notJudgedReason } from './not-judged-reason.js';
import type { ScenarioReport } from './schema.js';

/*
 * Why a scenario did not pass, in one line, the same in every view (the
 * summary rows of report.html and report.md, report.html's "what broke
 * first"). The first cause wins, in the order a reader needs them: the
 * invariants it broke (with the first line of evidence), else the job that did
 * not end as expected, else the fault that never fired (or the invariant that
 * had nothing to judge), else the harness's error. A harness error's reason
 * is that error (the verdict's own first cause: nothing else it found can be
 * trusted), a starved run's is the starvation that explains it, and a run that
 * never ran says why not. Never
 * empty for a scenario that did not pass: a verdict with no finding recorded
 * says so rather than leave a blank a reader would take for "nothing wrong".
 */

/** Which finding a reason comes from. */
export type FailureKind =
  | 'invariant'
  | 'expectation'
  | 'unfired'
  | 'nothing-judged'
  | 'error'
  | 'starved'
  | 'not-judged'
  | 'not-supported'
  | 'interrupted'
  | 'unrecorded';

/** Why a scenario did not pass: the kind of finding, and the line that says it. */
export interface FailureReason {
  kind: FailureKind;
  text: string;
}

/** How long a reason's quoted line may be before it is cut (the whole is beside it in the report). */
export const REASON_CHARS = 160;

function cut(line: string): string {
  const one = line.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return one.length > REASON_CHARS ? `${one.slice(0, REASON_CHARS - 1)}…` : one;
}

/** The first of `lines`, and how many more there are. */
function firstOf(lines: readonly string[]): string {
  return `${cut(lines[0]!)}${lines.length > 1 ? ` (and ${lines.length - 1} more)` : ''}`;
}

/** Why `scenario` did not pass, or null when it passed. */
export function failureReason(scenario: ScenarioReport): FailureReason | null {
  if (scenario.verdict === 'pass') return null;
  if (scenario.verdict === 'interrupted' && scenario.interrupted !== null)
    return { kind: 'interrupted', text: `interrupted, so not judged: ${cut(scenario.interrupted)}` };
  const notRun = notJudgedReason(scenario);
  if (notRun !== null && (scenario.verdict === 'not_supported' || scenario.verdict === 'not_judged'))
    return { kind: scenario.verdict === 'not_supported' ? 'not-supported' : 'not-judged', text: cut(notRun) };
  // A harness failure makes every other finding untrustworthy (the verdict's own first cause): it is the reason.
  if (scenario.verdict === 'error' && scenario.error !== null) return { kind: 'error', text: `the harness failed: ${cut(scenario.error)}` };
  // Starvation explains every finding of an inconclusive run: the findings themselves are not the reason.
  const starved = scenario.inconclusive ?? [];
  if (scenario.verdict === 'inconclusive' && starved.length > 0) return { kind: 'starved', text: `the machine starved it: ${firstOf(starved)}` };
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  if (broken.length > 0) {
    const evidence = broken.find((v) => v.evidence.length > 0)?.evidence[0];
    return { kind: 'invariant', text: `broke ${broken.map((v) => v.id).join(', ')}${evidence !== undefined ? `: ${cut(evidence)}` : ''}` };
  }
  if (scenario.expectations.length > 0) return { kind: 'expectation', text: firstOf(scenario.expectations) };
  const wrong = scenario.jobs.filter((job) => !job.matches);
  if (wrong.length > 0) {
    const job = wrong[0]!;
    return { kind: 'expectation', text: `job ${job.id ?? job.key}: expected ${job.expected.status}, ended ${job.actual.status}` };
  }
  if (scenario.unfired.length > 0) return { kind: 'unfired', text: firstOf(scenario.unfired) };
  if (scenario.nothingJudged.length > 0) return { kind: 'nothing-judged', text: firstOf(scenario.nothingJudged) };
  if (scenario.error !== null) return { kind: 'error', text: `the harness failed: ${cut(scenario.error)}` };
  if (notRun !== null) return { kind: 'not-judged', text: cut(notRun) };
  return { kind: 'unrecorded', text: `${scenario.verdict.replace('_', ' ')} with no finding recorded (report.json holds the whole scenario)` };
}
