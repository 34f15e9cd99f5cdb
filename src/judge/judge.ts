import { describeUnfired } from '../faults/fault-plan.js';
import { redact } from '../kernel/redact.js';
import { INVARIANT_KINDS, type InvariantId } from '../kernel/vocabulary.js';
import type { FaultReport, ScenarioReport, Verdict, WorldFaultReport } from '../report/schema.js';
import { scenarioVerdict } from '../report/verdict.js';
import type { ScenarioRun } from './drill-record.js';
import { duplicatedEffects } from './duplicated-effects.js';
import type { Evidence } from './evidence.js';
import { interruptedEntry, interruptionLine } from './interrupted.js';
import { checkInvariants, expectationVerdicts } from './invariants/index.js';
import { secretsRedacted } from './invariants/secrets-redacted.js';
import { jobReports } from './job-reports.js';
import { nothingJudged } from './must-judge.js';
import { recoveryTimes } from './recovery-times.js';
import { explainByStarvation, starvationSummary } from './starvation.js';
import { explainStaleCallsByStarvation } from './starved-stale-calls.js';

/*
 * The judge: one run's evidence in, one report entry out. The pieces are
 * their own modules, each pure and tested on hand-built evidence:
 * recovery-times.ts (kill → reclaim → settle), job-reports.ts (each planned
 * job's end against its expectation), duplicated-effects.ts (keys the world
 * applied twice, matched to their jobs), invariants/ (the verdicts),
 * must-judge.ts (the invariants the scenario had to give something to judge).
 */

/** Each armed fault that never fired: its line (a point fault's rule, or a world fault's description), and the worker it was aimed at. */
function unfiredList(run: Pick<ScenarioRun, 'pointFaults' | 'worldFaults'>): Array<{ line: string; worker?: string | undefined }> {
  return [
    ...run.pointFaults.filter((f) => f.fires === 0).map((f) => ({ line: describeUnfired(f), worker: f.rule.where?.worker })),
    ...run.worldFaults.filter((f) => f.armed.fired === 0).map((f) => ({ line: `world fault ${f.describe} never fired` })),
  ];
}

/** One line per armed fault that never fired: a point fault's rule, or a world fault's description. */
export function unfiredFaults(run: Pick<ScenarioRun, 'pointFaults' | 'worldFaults'>): string[] {
  return unfiredList(run).map((f) => f.line);
}

/** The faults as the report lists them: every point touched, then each point fault and each world fault with its counts. */
function faultReports(run: ScenarioRun): { faultPoints: string[]; faults: FaultReport[]; worldFaults: WorldFaultReport[] } {
  return {
    faultPoints: [...new Set([...run.scenario.pointFaults.map((f) => f.point), ...run.worldFaults.map((f) => `world: ${f.describe}`)])],
    faults: run.pointFaults.map((stats) => faultReport(stats, run.scenario.secrets)),
    worldFaults: run.worldFaults.map((f) => ({
      id: f.armed.id,
      match: f.describe,
      action: f.armed.spec.action.type,
      times: f.armed.spec.times,
      fired: f.armed.fired,
    })),
  };
}

/**
 * A rule as the report keeps it: its action's argument, where it is limited
 * to, and its limits (the first N hits, a probability). The argument is the
 * scenario's text (an error's message may quote a job's secret, to test that
 * nothing leaks it), so its text is redacted like every other artefact's.
 */
function faultReport(stats: ScenarioRun['pointFaults'][number], secrets: readonly string[]): FaultReport {
  const { rule } = stats;
  const arg = Object.entries(rule.arg ?? {}).flatMap(([key, value]): Array<[string, string | number | boolean]> => {
    if (value === undefined) return [];
    if (typeof value === 'number' || typeof value === 'boolean') return [[key, value]];
    return [[key, redact(typeof value === 'string' ? value : JSON.stringify(value), secrets)]];
  });
  return {
    id: rule.id,
    point: rule.point,
    action: rule.action,
    ...(arg.length > 0 ? { arg: Object.fromEntries(arg) } : {}),
    where: Object.fromEntries(Object.entries(rule.where ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string | number>,
    ...(rule.first !== undefined ? { first: rule.first } : {}),
    ...(rule.probability !== undefined ? { probability: rule.probability } : {}),
    hits: stats.hits,
    fired: stats.fires,
  };
}

/**
 * The report is an artefact too: a secret must not reach it through any
 * evidence line or history. The secrets-redacted verdict, judged again with
 * the entry itself (as JSON) among the artefacts, in the first one's place.
 */
function recheckSecrets(entry: Omit<ScenarioReport, 'verdict'>, evidence: Evidence): Verdict[] {
  const again = secretsRedacted.check({
    ...evidence,
    artefacts: [...evidence.artefacts, { name: 'report.json (this scenario)', text: JSON.stringify(entry) }],
  });
  return entry.invariants.map((v) => (v.id === 'secrets-redacted' ? again : v));
}

/**
 * Judges one run: every invariant, every job's expected end, every fault's
 * firing; a report entry. A run the harness was stopped in before rest
 * (`interruptedBy`: what stopped it) is kept as it stood and judged not at all.
 */
export function judgeScenario(
  run: ScenarioRun & Partial<Pick<ScenarioReport, 'queueSettings' | 'queueOptions' | 'queueTiming'>>,
  meta: { repeat: number; replay: string; interruptedBy?: string },
): ScenarioReport {
  const { evidence, scenario } = run;
  const invariants = checkInvariants(evidence, scenario.invariants);
  const expectations = expectationVerdicts(evidence);
  const duplicates = duplicatedEffects(evidence.effects);
  const unfired = unfiredFaults(run);
  const { faultPoints, faults, worldFaults } = faultReports(run);
  // The fields in the report's order: report.json is this object as written.
  const entry: Omit<ScenarioReport, 'verdict'> = {
    name: scenario.name,
    description: scenario.description,
    queue: scenario.settings.queue,
    queueVersion: run.queueVersion,
    available: evidence.available,
    seed: scenario.seed,
    repeat: meta.repeat,
    notJudged: null,
    notSupported: null,
    checks: scenario.checks ?? [],
    // Filled in once the verdicts are final: the invariants of `checks` the queue could not give the evidence for.
    unjudgedChecks: [],
    interrupted: null,
    // Filled in once the verdicts are final: whether the machine's starvation explains every finding.
    inconclusive: null,
    starvation: starvationSummary(evidence.starved ?? []),
    timeScale: scenario.timeScale ?? 1,
    queueSettings: run.queueSettings ?? {},
    queueOptions: run.queueOptions ?? {},
    queueTiming: run.queueTiming ?? null,
    world: scenario.worldFences === false ? 'plain' : 'fenced',
    durationMs: run.durationMs,
    // Judging is timed by whoever judges (run-judged.ts), once the entry is made.
    ...(run.phases ? { phases: { ...run.phases, judgeMs: 0 } } : {}),
    runDir: run.runDir,
    replay: meta.replay,
    faultPoints,
    faults,
    worldFaults,
    unfired,
    // Filled in once the verdicts are final (after the secrets' re-check below).
    nothingJudged: [],
    jobs: jobReports(scenario.jobs, evidence, duplicates, run.address ?? null),
    duplicatedEffects: duplicates,
    recovery: recoveryTimes(evidence),
    invariants,
    expectations,
    timeline: evidence.timeline,
    error: run.error,
    artefacts: { store: run.store, ledger: run.ledger, logs: evidence.logs.map((l) => l.name) },
  };
  if (run.ending === 'interrupted') {
    const halfRun = interruptedEntry(entry, scenario.invariants, interruptionLine(meta.interruptedBy ?? 'an abort', run.durationMs, run.error));
    return { ...halfRun, verdict: scenarioVerdict(halfRun) };
  }
  if (scenario.invariants.includes('secrets-redacted')) entry.invariants = recheckSecrets(entry, evidence);
  entry.nothingJudged = nothingJudged(scenario, entry.invariants);
  entry.unjudgedChecks = unjudgedChecks(entry.checks, entry.invariants);
  entry.inconclusive = starvedFindings(entry, run, evidence);
  return { ...entry, verdict: scenarioVerdict(entry) };
}

/**
 * One line per invariant the scenario exists to check that was not judged:
 * what it needed, in the queue's words (each is one the scenario runs: the
 * file's cross-checks say so).
 */
function unjudgedChecks(checks: readonly InvariantId[], verdicts: readonly Verdict[]): string[] {
  return verdicts
    .filter((v) => v.status === 'not_judged' && checks.includes(v.id))
    .map((v) => `${v.id}, which this scenario exists to check: ${v.note ?? 'the queue cannot give its evidence'}`);
}

/**
 * Whether the machine, not the queue, explains what this run found: with no
 * safety invariant broken (but for stale calls a plain world applied from a
 * holder starved past its lease: ./starved-stale-calls.ts), every liveness
 * breach, every job that ended wrong and every fault that never fired
 * explained by a starved span (the lines that say so), else null
 * (src/judge/starvation.ts).
 */
function starvedFindings(entry: Omit<ScenarioReport, 'verdict'>, run: ScenarioRun, evidence: Evidence): string[] | null {
  const broken = entry.invariants.filter((v) => v.status === 'broken');
  const safety = broken.filter((v) => INVARIANT_KINDS[v.id] === 'safety');
  // A safety breach stays a failure, but for a stale call a plain world applied from a holder starved past its lease.
  const staleCalls = safety.length === 0 ? [] : explainStaleCallsByStarvation(evidence, safety);
  if (staleCalls === null) return null;
  const findings = {
    liveness: broken.filter((v) => INVARIANT_KINDS[v.id] !== 'safety'),
    wrongJobs: entry.jobs.filter((job) => !job.matches),
    unfired: unfiredList(run),
  };
  if (findings.liveness.length + findings.wrongJobs.length + findings.unfired.length === 0) return staleCalls.length > 0 ? staleCalls : null;
  const rest = explainByStarvation(evidence, findings);
  return rest === null ? null : [...staleCalls, ...rest];
}
