import type { ResolvedScenario } from '../scenarios/resolve.js';
import type { WorldFaultActionSpec } from '../world/fault-actions/index.js';
import type { InvariantId, Verdict } from './evidence.js';

/*
 * Which invariants a scenario must have given something to judge, decided
 * from the scenario's own content, in one place. An invariant that held on
 * nothing where the scenario should have given it something did not test what
 * the scenario claims to (a drill whose producers never raced has not tested
 * dedupe), so the scenario is vacuous, as when an armed fault never fired.
 *
 * Each rule is one line of reasoning from what the scenario asks for to what
 * the evidence must then hold, in the invariant's own unit (its `judged`):
 *   - jobs asked for: the queue's record of them (each job's end, attempts,
 *     lease and history; at least one state change; at least one claim; a
 *     lease's end placed in the harness's time);
 *   - several producers on the same keys: at least one key on which two of
 *     them had calls in flight at once, with its creation reported;
 *   - a job expected done: a done job, and its effects against the ledger;
 *   - a job whose plan touches the world: a step compared with the ledger;
 *   - a job expected to end in review (or as a saga's end): a job that went
 *     to review;
 *   - a service that answers 503 or 429: a job released to retry, with the
 *     delay it must wait;
 *   - a job expected compensated or compensation_failed: a saga judged to its end;
 *   - a planted secret: a secret whose job ran, searched for everywhere.
 * An invariant the scenario does not name, or that is not judged (the queue
 * cannot give what it needs), is not held to any rule.
 */

/** One rule: an invariant, why this scenario must give it something (or null: it need not), and what it should have judged. */
interface MustJudgeRule {
  invariant: InvariantId;
  because(scenario: ResolvedScenario): string | null;
  what: string;
}

const REVIEW_ENDS = new Set(['review', 'compensated', 'compensation_failed']);
const SAGA_ENDS = new Set(['compensated', 'compensation_failed']);

function jobsAskedFor(scenario: ResolvedScenario): string | null {
  return scenario.jobs.length > 0 ? `the scenario asks for ${scenario.jobs.length} job(s)` : null;
}

function expecting(scenario: ResolvedScenario, ends: ReadonlySet<string>): string | null {
  const jobs = scenario.jobs.filter((job) => ends.has(job.expect.status));
  return jobs.length > 0 ? `${jobs.length} job(s) are expected to end ${[...new Set(jobs.map((j) => j.expect.status))].join(' or ')}` : null;
}

/** The world answers 503 or 429 to some call before the budget runs out: a job fails and waits to retry. */
function transientFailures(scenario: ResolvedScenario): string | null {
  const transient = scenario.worldFaults.filter(({ spec }) => {
    // The spec was checked when the scenario was resolved: its action is one of the world's.
    const action = spec.action as WorldFaultActionSpec;
    return action.type === 'fail' && (action.status === 503 || action.status === 429);
  });
  return transient.length > 0 ? 'the service answers 503 or 429 to some calls' : null;
}

/** The rules, in the order of their reasoning above. */
export const MUST_JUDGE: readonly MustJudgeRule[] = [
  { invariant: 'no-lost-job', because: jobsAskedFor, what: "a job's end in the store" },
  { invariant: 'attempts-bounded', because: jobsAskedFor, what: "a job's attempts" },
  { invariant: 'lease-released', because: jobsAskedFor, what: "a job's lease at rest" },
  { invariant: 'history-complete', because: jobsAskedFor, what: "a job's history" },
  { invariant: 'transitions-allowed', because: jobsAskedFor, what: 'a state change in the history' },
  { invariant: 'single-holder', because: jobsAskedFor, what: 'a lease (a claim) in the history' },
  { invariant: 'lease-respected', because: jobsAskedFor, what: "a lease's end in the history, placed in the harness's time" },
  {
    invariant: 'dedupe-on-enqueue',
    because: (s) => (s.settings.producers > 1 && s.jobs.length > 0 ? `${s.settings.producers} producers enqueue the same keys` : null),
    what: "a key on which two producers' enqueue calls were in flight at once, with the one told it created the job",
  },
  { invariant: 'done-is-verified', because: (s) => expecting(s, new Set(['done'])), what: 'a done job' },
  {
    invariant: 'no-duplicate-effect',
    because: (s) =>
      s.jobs.some((job) => job.plan.steps.some((step) => step.has_side_effect)) ? "the scenario's plans have steps that touch the world" : null,
    what: 'a side-effect step against the ledger',
  },
  { invariant: 'review-sticky', because: (s) => expecting(s, REVIEW_ENDS), what: 'a job that went to review' },
  { invariant: 'retry-backoff', because: transientFailures, what: 'a release to retry after a failed attempt, with the delay chosen' },
  { invariant: 'saga-compensation', because: (s) => expecting(s, SAGA_ENDS), what: 'a saga judged to its end' },
  {
    invariant: 'secrets-redacted',
    because: (s) => (s.secrets.length > 0 ? `the scenario plants ${s.secrets.length} secret(s)` : null),
    what: 'a planted secret whose job ran, searched for in every artefact',
  },
];

/**
 * One line per invariant that had nothing to judge where the scenario should
 * have given it something (none when every rule is met): what makes the
 * scenario vacuous, in the report's words.
 */
export function nothingJudged(scenario: ResolvedScenario, verdicts: readonly Verdict[]): string[] {
  const lines: string[] = [];
  for (const rule of MUST_JUDGE) {
    const verdict = verdicts.find((v) => v.id === rule.invariant);
    // A broken verdict fails the scenario whatever it judged; one not judged says why already.
    if (verdict?.status !== 'held' || verdict.judged > 0) continue;
    const because = rule.because(scenario);
    if (because === null) continue;
    lines.push(
      `${rule.invariant} had nothing to judge, yet ${because}: it should have judged ${rule.what}${verdict.note ? ` (${verdict.note})` : ''}`,
    );
  }
  return lines;
}
