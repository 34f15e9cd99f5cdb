import { describeUnfired } from '../faults/fault-plan.js';
import type { JobSnapshot } from '../port/snapshot.js';
import type { JobReport, RecoveryReport, ScenarioReport } from '../report/schema.js';

type DuplicatedEffect = JobReport['duplicatedEffects'][number];
import { scenarioVerdict } from '../report/verdict.js';
import { renderHistory } from '../observe/history.js';
import type { Evidence } from './evidence.js';
import { checkInvariants, expectationMismatch, expectationVerdicts, secretsRedacted } from './invariants/index.js';
import type { ScenarioRun } from './run-scenario.js';

/** What a job ended as, in the terms a scenario expects (a compensated saga is its own outcome). */
function outcomeOf(job: JobSnapshot): string {
  if (job.status !== 'review') return job.status;
  return job.outcome ?? 'review';
}

function duplicatedEffects(evidence: Evidence): Array<DuplicatedEffect & { appliedBy: string[] }> {
  const byKey = new Map<string, typeof evidence.effects>();
  for (const effect of evidence.effects) byKey.set(effect.key, [...(byKey.get(effect.key) ?? []), effect]);
  return [...byKey]
    .filter(([, effects]) => effects.length > 1)
    .map(([key, effects]) => ({
      key,
      tool: effects[0]!.tool,
      times: effects.length,
      appliedBy: effects.map((e) => `${e.worker} pid ${e.pid} attempt ${e.attempt} at ${e.at}`),
    }));
}

/** Per kill: how long until the job it held was claimed again, and until it settled. */
function recoveryTimes(evidence: Evidence): RecoveryReport[] {
  const kills = evidence.timeline.filter((e) => e.kind === 'kill');
  return kills.map((kill) => {
    const jobId = kill.job ?? null;
    const after = (e: { at: string }) => e.at >= kill.at;
    const events = jobId === null ? [] : evidence.events.filter((e) => e.jobId === jobId && e.kind === 'transition' && after(e));
    const reclaimed = events.find((e) => e.to === 'running');
    const settled = events.find((e) => e.to === 'done' || e.to === 'review');
    const ms = (at: string | undefined) => (at === undefined ? null : Date.parse(at) - Date.parse(kill.at));
    return {
      process: kill.process ?? '?',
      killedAt: kill.at,
      point: kill.point ?? null,
      jobId,
      reclaimedAt: reclaimed?.at ?? null,
      settledAt: settled?.at ?? null,
      killToReclaimMs: ms(reclaimed?.at),
      killToSettledMs: ms(settled?.at),
    };
  });
}

function jobReports(run: ScenarioRun, duplicates: ReturnType<typeof duplicatedEffects>): JobReport[] {
  const { evidence } = run;
  return run.scenario.jobs.map((planned) => {
    const job = evidence.jobs.find((j) => j.key === planned.key);
    const states = job ? evidence.events.filter((e) => e.jobId === job.id) : [];
    const located = job !== undefined && states[0]?.from === null && states.filter((e) => e.kind === 'transition').at(-1)?.to === job.status;
    const actual = job ? outcomeOf(job) : 'missing';
    return {
      id: job?.id ?? null,
      key: planned.key,
      expected: planned.expect,
      actual: { status: actual, reason: job?.reviewReason ?? null },
      // The same judgement as the expectation lines, so the two never disagree.
      matches: expectationMismatch(job, planned.key, planned.expect) === null,
      attempts: job?.attempts ?? 0,
      maxAttempts: job?.maxAttempts ?? planned.maxAttempts,
      duplicatedEffects: duplicates.filter((d) => job && d.key.startsWith(job.key.slice(0, 16))).map(({ key, tool, times }) => ({ key, tool, times })),
      located,
      history: job
        ? renderHistory({
            job,
            states,
            steps: evidence.txLog.filter((t) => t.job_id === job.id),
            effects: evidence.effects.filter((f) => f.job === job.id),
            incidents: evidence.incidents.filter((i) => i.job_id === job.id),
          }).split('\n')
        : [`no job with key ${planned.key.slice(0, 16)}… in the store`],
    };
  });
}

/** Judges one run: every invariant, every job's expected end, every fault's firing; a report entry. */
export function judgeScenario(run: ScenarioRun, meta: { repeat: number; replay: string }): ScenarioReport {
  const { evidence, scenario } = run;
  const invariants = checkInvariants(evidence, scenario.invariants);
  const expectations = expectationVerdicts(evidence);
  const duplicates = duplicatedEffects(evidence);
  const unfired = [
    ...run.pointFaults.filter((f) => f.fires === 0).map(describeUnfired),
    ...run.worldFaults.filter((f) => f.armed.fired === 0).map((f) => `world fault ${f.describe} never fired`),
  ];
  const entry: Omit<ScenarioReport, 'verdict'> = {
    name: scenario.name,
    description: scenario.description,
    queue: scenario.settings.queue,
    queueVersion: run.queueVersion,
    available: evidence.available,
    seed: scenario.seed,
    repeat: meta.repeat,
    durationMs: run.durationMs,
    runDir: run.runDir,
    replay: meta.replay,
    faultPoints: [...new Set([...scenario.pointFaults.map((f) => f.point), ...run.worldFaults.map((f) => `world: ${f.describe}`)])],
    faults: run.pointFaults.map((f) => ({
      id: f.rule.id,
      point: f.rule.point,
      action: f.rule.action,
      where: Object.fromEntries(Object.entries(f.rule.where ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string | number>,
      hits: f.hits,
      fired: f.fires,
    })),
    worldFaults: run.worldFaults.map((f) => ({ id: f.armed.id, match: f.describe, action: f.armed.spec.action.type, fired: f.armed.fired })),
    unfired,
    jobs: jobReports(run, duplicates),
    duplicatedEffects: duplicates,
    recovery: recoveryTimes(evidence),
    invariants,
    expectations,
    timeline: evidence.timeline,
    error: run.error ?? (run.ending === 'interrupted' ? 'the drill was interrupted' : null),
    artefacts: { store: run.store, ledger: run.ledger, logs: evidence.logs.map((l) => l.name) },
  };
  // The report is an artefact too: a secret must not reach it through any evidence line or history.
  if (scenario.invariants.includes('secrets-redacted')) {
    const again = secretsRedacted.check({ ...evidence, artefacts: [...evidence.artefacts, { name: 'report.json (this scenario)', text: JSON.stringify(entry) }] });
    entry.invariants = entry.invariants.map((v) => (v.id === 'secrets-redacted' ? again : v));
  }
  return { ...entry, verdict: scenarioVerdict(entry) };
}
