import { describe, expect, it } from 'vitest';
import { describeUnfired, type RuleStats } from '../../src/faults/fault-plan.js';
import type { ScenarioRun } from '../../src/judge/drill-record.js';
import { INVARIANT_IDS, type TimelineEvent } from '../../src/judge/evidence.js';
import { judgeScenario } from '../../src/judge/judge.js';
import { utc } from '../../src/kernel/clock.js';
import { jobLife } from '../../src/report/job-life.js';
import { ScenarioReportSchema } from '../../src/report/schema.js';
import { stepKey } from '../../src/saga/plan.js';
import type { ResolvedJob } from '../../src/scenarios/resolve.js';
import { judged, META, plannedJobs, runOf } from './crafted-run.js';
import {
  cleanBuilder,
  cleanEvidence,
  digestOf,
  EvidenceBuilder,
  jobIn,
  planOf,
  richBuilder,
  SECRET,
  STEPS,
  T0,
} from './invariants/evidence-builder.js';

/*
 * judgeScenario on runs built by hand: the evidence from the invariant tests'
 * builder (test/judge/invariants/evidence-builder.ts), wrapped in the
 * ScenarioRun a drill would hand the judge (src/judge/drill-record.ts),
 * with faults armed and fired (or not) as the test says.
 */

function crashRule(id: string, fires: number, hits = fires): RuleStats {
  return { rule: { id, point: 'after_write', action: 'crash', where: { worker: 'w1', attempt: 1 } }, hits, fires };
}

function worldFault(id: number, fired: number, describe: string): ScenarioRun['worldFaults'][number] {
  return {
    armed: {
      id,
      spec: { match: { tool: 'send_email' }, action: { type: 'fail', status: 403 }, times: 1 },
      fired,
      remaining: 1 - fired,
      armedAt: utc(T0),
      clearedAt: null,
    },
    describe,
  };
}

/** The harness's record of a SIGKILL, as run-scenario writes it (with `job` only when the process held one). */
function kill(
  b: EvidenceBuilder,
  process: string,
  place: { point: TimelineEvent['point']; worker: string; job?: string; attempt?: number },
): TimelineEvent {
  const event: TimelineEvent = { at: b.tick(), kind: 'kill', process, pid: 4242, detail: `SIGKILL while held at ${place.point}`, ...place };
  b.evidence.timeline.push(event);
  return event;
}

describe('judgeScenario: recovery times', () => {
  /** Three kills: one whose job is reclaimed and settles, one of a producer holding no job, one whose job is never reclaimed. */
  function killed() {
    const b = new EvidenceBuilder();
    const reclaimed = b.job(planOf(STEPS.write, STEPS.email));
    reclaimed.claim('w1').execute('write');
    const first = kill(b, 'w1#1', { point: 'after_write', worker: 'w1', job: reclaimed.id, attempt: 1 });
    reclaimed.expire();
    // The killed holder's late write, refused: a refusal is not a settlement.
    reclaimed.refused('w1', 1);
    reclaimed.claim('w2').execute('email').complete();

    const noJob = kill(b, 'p1#1', { point: 'enqueue', worker: 'p1' });

    const lastTry = b.job(planOf(STEPS.branch), { maxAttempts: 1, expect: { status: 'review' } });
    lastTry.claim('w2');
    const third = kill(b, 'w2#1', { point: 'after_claim', worker: 'w2', job: lastTry.id, attempt: 1 });
    lastTry.expire();
    return { evidence: b.build(), kills: [first, noJob, third], ids: [reclaimed.id, lastTry.id] as const };
  }

  it('measures kill → reclaim → settle for a job taken up again, and nothing for a kill that held no job', () => {
    const { evidence, kills, ids } = killed();
    const events = (jobId: string) => evidence.events.filter((e) => e.jobId === jobId && e.kind === 'transition' && e.at >= kills[0]!.at);
    const reclaimedAt = events(ids[0]).find((e) => e.to === 'running')!.at;
    const settledAt = events(ids[0]).find((e) => e.to === 'done')!.at;
    const { recovery } = judged(runOf(evidence));
    expect(recovery).toHaveLength(3);
    expect(recovery[0]).toEqual({
      process: 'w1#1',
      killedAt: kills[0]!.at,
      point: 'after_write',
      jobId: ids[0],
      reclaimedAt,
      settledAt,
      // The lease ran out (30 s + 1 s margin + 1 ms), then retry, the refusal and w2's claim, 100 ms apart; then w2's call and done.
      killToReclaimMs: 31_301,
      killToSettledMs: 31_701,
    });
    expect(Date.parse(settledAt) - Date.parse(kills[0]!.at)).toBe(31_701);
    expect(recovery[1]).toEqual({
      process: 'p1#1',
      killedAt: kills[1]!.at,
      point: 'enqueue',
      jobId: null,
      reclaimedAt: null,
      settledAt: null,
      killToReclaimMs: null,
      killToSettledMs: null,
    });
  });

  it('a job never claimed again settles (in review) with no reclaim time', () => {
    const { evidence, kills, ids } = killed();
    const { recovery } = judged(runOf(evidence));
    const review = evidence.events.find((e) => e.jobId === ids[1] && e.to === 'review')!;
    expect(recovery[2]).toEqual({
      process: 'w2#1',
      killedAt: kills[2]!.at,
      point: 'after_claim',
      jobId: ids[1],
      reclaimedAt: null,
      settledAt: review.at,
      killToReclaimMs: null,
      killToSettledMs: 31_101,
    });
  });

  it('no kill, no recovery entry', () => {
    expect(judged(runOf(cleanEvidence())).recovery).toEqual([]);
  });
});

describe("judgeScenario: each job's expected and actual outcome", () => {
  function ended() {
    const { b, jobs } = richBuilder();
    const awaiting = b.job(planOf(STEPS.publish), { expect: { status: 'review' } });
    awaiting.claim('w1').review('step publish prepared: awaiting approval', undefined, 'awaiting_approval');
    const wrong = b.job(planOf(STEPS.email), { maxAttempts: 1, expect: { status: 'done' } });
    wrong
      .claim('w1')
      .execute('email', 'failed', { detail: 'PermanentError: HTTP 401' })
      .review('step email (send_email) failed for good (permanent)');
    const evidence = b.build();
    const missing: ResolvedJob = { n: 99, key: digestOf('never enqueued'), plan: planOf(STEPS.read), maxAttempts: 4, expect: { status: 'done' } };
    const report = judged(runOf(evidence, { jobs: [...plannedJobs(evidence), missing] }));
    const byKey = (key: string) => report.jobs.find((j) => j.key === key)!;
    return { report, evidence, byKey, jobs: { ...jobs, awaiting, wrong }, missing };
  }

  it('done, review, compensated, compensation_failed and awaiting_approval, each as the store and the saga say', () => {
    const { byKey, jobs } = ended();
    const summary = (key: string) => {
      const { id, expected, actual, matches, attempts, maxAttempts, located } = byKey(key);
      return { id, expected, actual, matches, attempts, maxAttempts, located };
    };
    expect(summary(jobs.died.key)).toEqual({
      id: jobs.died.id,
      expected: { status: 'done' },
      actual: { status: 'done', reason: null },
      matches: true,
      attempts: 2,
      maxAttempts: 3,
      located: true,
    });
    expect(summary(jobs.exhausted.key)).toEqual({
      id: jobs.exhausted.id,
      expected: { status: 'review', reason: 'retries exhausted' },
      actual: { status: 'review', reason: 'step email (send_email) failed for good (transient, retries exhausted or manual_only)' },
      matches: true,
      attempts: 2,
      maxAttempts: 2,
      located: true,
    });
    expect(summary(jobs.saga.key)).toMatchObject({
      expected: { status: 'compensated' },
      actual: { status: 'compensated', reason: expect.stringMatching(/^compensated: /) },
      matches: true,
    });
    expect(summary(jobs.sagaFailed.key)).toMatchObject({
      expected: { status: 'compensation_failed' },
      actual: { status: 'compensation_failed', reason: expect.stringMatching(/^COMPENSATION_FAILED: /) },
      matches: true,
    });
    // A job waiting for a person is in review: a `review` expectation holds.
    expect(summary(jobs.awaiting.key)).toMatchObject({
      expected: { status: 'review' },
      actual: { status: 'awaiting_approval', reason: 'step publish prepared: awaiting approval' },
      matches: true,
    });
  });

  it('a job that ended otherwise than expected does not match, and says so in the expectations', () => {
    const { report, byKey, jobs } = ended();
    expect(byKey(jobs.wrong.key)).toMatchObject({ expected: { status: 'done' }, actual: { status: 'review' }, matches: false });
    expect(report.expectations).toEqual([
      expect.stringMatching(
        new RegExp(`^job ${jobs.wrong.id} \\(key [0-9a-f]{8}…\\): expected done, got review \\(reason "step email \\(send_email\\) failed for good`),
      ),
    ]);
    expect(report.verdict).toBe('fail');
  });

  it('a planned job with no job in the store is missing, with its planned budget and no history', () => {
    const { byKey, missing } = ended();
    expect(byKey(missing.key)).toEqual({
      id: null,
      key: missing.key,
      expected: { status: 'done' },
      actual: { status: 'missing', reason: null },
      matches: false,
      attempts: 0,
      maxAttempts: 4,
      duplicatedEffects: [],
      located: false,
      approve: null,
      events: [],
    });
  });

  it("carries each job's life as data, in time order, from the evidence", () => {
    const { report, jobs } = ended();
    const events = report.jobs.find((j) => j.id === jobs.died.id)!.events;
    expect(events.length).toBeGreaterThan(0);
    expect(events.map((e) => e.at)).toEqual([...events.map((e) => e.at)].sort());
    expect(events.filter((e) => e.kind === 'transition').map((e) => (e.kind === 'transition' ? e.to : ''))).toContain('done');
  });

  it("lists the jobs in the scenario's order, each with its history rebuilt from the evidence", () => {
    const { report, evidence, jobs, missing } = ended();
    expect(report.jobs.map((j) => j.key)).toEqual([...evidence.accepted.map((a) => a.key), missing.key]);
    expect(jobLife(report.jobs.find((j) => j.id === jobs.died.id)!)[0]).toBe(
      `job ${jobs.died.id} key ${jobs.died.key.slice(0, 16)}…: done, attempt 2 of 3`,
    );
  });

  it('a job whose creation is not in the history is not located', () => {
    const { b, jobs } = cleanBuilder();
    const evidence = b.build();
    evidence.events = evidence.events.filter((e) => !(e.jobId === jobs[1].id && e.from === null));
    const report = judged(runOf(evidence));
    expect(report.jobs.map((j) => j.located)).toEqual([true, false, true]);
  });
});

describe('judgeScenario: duplicated effects', () => {
  it('matches each duplicated effect to the job whose key it starts with, and to no other', () => {
    const { b, jobs } = cleanBuilder();
    const [one, two, three] = jobs;
    // A zombie's second email for job 1, and a second branch for job 2.
    one.apply('email', { worker: 'w2', attempt: 2 });
    two.apply('branch', { worker: 'w1', attempt: 2 });
    const evidence = b.build();
    const report = judged(runOf(evidence));

    const emailKey = stepKey(one.key, 'email');
    const branchKey = stepKey(two.key, 'branch');
    const jobOf = (id: string) => report.jobs.find((j) => j.id === id)!;
    expect(jobOf(one.id).duplicatedEffects).toEqual([{ key: emailKey, tool: 'send_email', times: 2 }]);
    expect(jobOf(two.id).duplicatedEffects).toEqual([{ key: branchKey, tool: 'create_branch', times: 2 }]);
    expect(jobOf(three.id).duplicatedEffects).toEqual([]);

    const applied = (key: string) =>
      evidence.effects.filter((e) => e.key === key).map((e) => `${e.worker} pid ${e.pid} attempt ${e.attempt} at ${e.at}`);
    expect(report.duplicatedEffects).toEqual([
      { key: emailKey, tool: 'send_email', times: 2, appliedBy: applied(emailKey) },
      { key: branchKey, tool: 'create_branch', times: 2, appliedBy: applied(branchKey) },
    ]);
    expect(report.duplicatedEffects[0]!.appliedBy[1]).toMatch(/^w2 pid \d+ attempt 2 at /);
    // The email is not idempotent: the invariant breaks too.
    expect(report.invariants.find((v) => v.id === 'no-duplicate-effect')!.status).toBe('broken');
  });

  it('an effect applied once is no duplicate', () => {
    const report = judged(runOf(cleanEvidence()));
    expect(report.duplicatedEffects).toEqual([]);
    expect(report.jobs.every((j) => j.duplicatedEffects.length === 0)).toBe(true);
  });
});

describe('judgeScenario: faults armed and fired', () => {
  it('every fault fired: reported with its counts, and the clean run passes', () => {
    const report = judged(
      runOf(cleanEvidence(), { pointFaults: [crashRule('f1', 1, 3)], worldFaults: [worldFault(1, 1, 'fail 403 on tool send_email')] }),
    );
    expect(report.faults).toEqual([{ id: 'f1', point: 'after_write', action: 'crash', where: { worker: 'w1', attempt: 1 }, hits: 3, fired: 1 }]);
    expect(report.worldFaults).toEqual([{ id: 1, match: 'fail 403 on tool send_email', action: 'fail', times: 1, fired: 1 }]);
    expect(report.faultPoints).toEqual(['after_write', 'world: fail 403 on tool send_email']);
    expect(report.unfired).toEqual([]);
    expect(report.verdict).toBe('pass');
  });

  it("keeps each fault's limits and argument, its text redacted as every artefact's is", () => {
    const limited: RuleStats = {
      rule: {
        id: 'f3',
        point: 'before_call',
        action: 'error',
        arg: { kind: 'transient', message: `upstream refused api_key=${SECRET}`, ms: 5 },
        where: { step: 'write' },
        first: 2,
        probability: 0.5,
      },
      hits: 4,
      fires: 1,
    };
    const report = judged(runOf(cleanEvidence(), { pointFaults: [limited] }));
    expect(report.faults).toEqual([
      {
        id: 'f3',
        point: 'before_call',
        action: 'error',
        arg: { kind: 'transient', message: 'upstream refused api_key=[REDACTED]', ms: 5 },
        where: { step: 'write' },
        first: 2,
        probability: 0.5,
        hits: 4,
        fired: 1,
      },
    ]);
    expect(JSON.stringify(report)).not.toContain(SECRET);
    expect(report.invariants.find((v) => v.id === 'secrets-redacted')?.status).toBe('held');
  });

  it('reports a world fault with its limit of calls', () => {
    const thrice = worldFault(1, 3, 'fail 503 on tool send_email');
    thrice.armed.spec.times = 3;
    const report = judged(runOf(cleanEvidence(), { worldFaults: [thrice] }));
    expect(report.worldFaults).toEqual([{ id: 1, match: 'fail 503 on tool send_email', action: 'fail', times: 3, fired: 3 }]);
  });

  it('an unfired point fault makes the scenario vacuous', () => {
    const unfired = crashRule('f2', 0, 2);
    const report = judged(runOf(cleanEvidence(), { pointFaults: [crashRule('f1', 1), unfired] }));
    expect(report.unfired).toEqual([describeUnfired(unfired)]);
    expect(report.unfired[0]).toBe('crash at after_write (rule f2, worker=w1, attempt=1) never fired: 2 hits');
    expect(report.verdict).toBe('vacuous');
  });

  it('an unfired world fault makes the scenario vacuous', () => {
    const report = judged(
      runOf(cleanEvidence(), { worldFaults: [worldFault(1, 1, 'fail 403 on tool send_email'), worldFault(2, 0, 'drop on job 1 step email')] }),
    );
    expect(report.unfired).toEqual(['world fault drop on job 1 step email never fired']);
    expect(report.verdict).toBe('vacuous');
  });

  it('a broken invariant outweighs an unfired fault', () => {
    const { b, jobs } = cleanBuilder();
    jobs[0].apply('email', { worker: 'w2', attempt: 2 });
    const report = judged(runOf(b.build(), { pointFaults: [crashRule('f1', 0)] }));
    expect(report.unfired).toHaveLength(1);
    expect(report.verdict).toBe('fail');
  });

  it('a harness error is an error', () => {
    expect(judged(runOf(cleanEvidence(), { ending: 'harness-error', error: 'the world did not start' }))).toMatchObject({
      error: 'the world did not start',
      verdict: 'error',
    });
  });
});

describe('judgeScenario: a drill interrupted before rest', () => {
  /** A half-run: a job still running (no-lost-job and lease-released would break on it) and a fault that has not fired yet. */
  function halfRun() {
    const { b, jobs } = cleanBuilder();
    jobs[0].apply('email', { worker: 'w2', attempt: 2 });
    const running = b.job(planOf(STEPS.write));
    running.claim('w1');
    return runOf(b.build(), { ending: 'interrupted', pointFaults: [crashRule('f1', 0, 1)] });
  }

  it('is interrupted, saying by what and how far in, and judges nothing: every invariant not judged, none claimed broken', () => {
    const report = judgeScenario(halfRun(), { ...META, interruptedBy: 'SIGINT' });
    expect(ScenarioReportSchema.safeParse(report).success).toBe(true);
    expect(report.verdict).toBe('interrupted');
    expect(report.interrupted).toBe('interrupted by SIGINT 1.2 s in, before the drill reached rest');
    expect(report.error).toBeNull();
    expect(report.invariants.map((v) => v.id)).toEqual([...INVARIANT_IDS]);
    for (const v of report.invariants)
      expect(v).toMatchObject({ status: 'not_judged', judged: 0, evidence: [], note: expect.stringMatching(/interrupted/) });
    // Unfinished work is not a finding: no expectation, unfired fault or empty judgement is held against it.
    expect(report.expectations).toEqual([]);
    expect(report.unfired).toEqual([]);
    expect(report.nothingJudged).toEqual([]);
  });

  it('keeps what happened: each job where it stood, the faults with their counts, the duplicated effect seen', () => {
    const report = judgeScenario(halfRun(), { ...META, interruptedBy: 'SIGINT' });
    expect(report.jobs.map((job) => job.actual.status)).toContain('running');
    expect(report.faults).toMatchObject([{ id: 'f1', hits: 1, fired: 0 }]);
    expect(report.duplicatedEffects).toHaveLength(1);
    // The same half-run at rest would have failed: the interruption is what keeps it from being judged.
    expect(judged({ ...halfRun(), ending: 'at-rest' }).verdict).toBe('fail');
  });

  it('says what the stop left missing, and "an abort" when no signal is named', () => {
    const report = judgeScenario({ ...halfRun(), error: 'the ledger could not be read' }, META);
    expect(report.interrupted).toBe('interrupted by an abort 1.2 s in, before the drill reached rest; the ledger could not be read');
    expect(report.verdict).toBe('interrupted');
  });
});

describe('judgeScenario: invariants that had nothing to judge where the scenario should have given them something', () => {
  it('is vacuous when several producers never raced on a key, and says so', () => {
    const report = judged(runOf(cleanEvidence(), { producers: 4 }));
    expect(report.invariants.find((v) => v.id === 'dedupe-on-enqueue')).toMatchObject({ status: 'held', judged: 0 });
    expect(report.nothingJudged).toEqual([
      "dedupe-on-enqueue had nothing to judge, yet 4 producers enqueue the same keys: it should have judged a key on which two producers' " +
        "enqueue calls were in flight at once, with the one told it created the job (no key had two producers' enqueue calls in flight at once: nothing raced)",
    ]);
    expect(report.unfired).toEqual([]);
    expect(report.verdict).toBe('vacuous');
  });

  it('passes when two producers raced on a key and exactly one was told it created the job', () => {
    const evidence = cleanEvidence();
    Object.assign(evidence.accepted[0]!, { enqueueAttempts: 4, createdCount: 1, raced: true });
    const report = judged(runOf(evidence, { producers: 4 }));
    expect(report.nothingJudged).toEqual([]);
    expect(report.verdict).toBe('pass');
  });

  it('is vacuous when the job carrying the planted secret never ran', () => {
    const { b } = cleanBuilder();
    const evidence = b.build();
    // The secret is in job 3's payload: as if no worker had ever claimed it.
    Object.assign(jobIn(evidence, 3), { attempts: 0 });
    const report = judged(runOf(evidence, { invariants: ['secrets-redacted'] }));
    expect(report.nothingJudged).toEqual([expect.stringMatching(/^secrets-redacted had nothing to judge, yet the scenario plants 1 secret\(s\): /)]);
    expect(report.verdict).toBe('vacuous');
  });

  it('a broken invariant outweighs one that had nothing to judge', () => {
    const { b, jobs } = cleanBuilder();
    jobs[0].apply('email', { worker: 'w2', attempt: 2 });
    const report = judged(runOf(b.build(), { producers: 4 }));
    expect(report.nothingJudged).toHaveLength(1);
    expect(report.verdict).toBe('fail');
  });
});

describe('judgeScenario: the invariants a scenario names', () => {
  it('judges only those, in the order of INVARIANT_IDS', () => {
    const report = judged(runOf(cleanEvidence(), { invariants: ['secrets-redacted', 'no-lost-job', 'attempts-bounded'] }));
    expect(report.invariants.map((v) => v.id)).toEqual(['no-lost-job', 'attempts-bounded', 'secrets-redacted']);
    expect(report.invariants.every((v) => v.status === 'held')).toBe(true);
  });

  it('an invariant the scenario does not name is not judged, broken or not', () => {
    const { b, jobs } = cleanBuilder();
    jobs[0].apply('email', { worker: 'w2', attempt: 2 });
    const report = judged(runOf(b.build(), { invariants: ['no-lost-job'] }));
    expect(report.invariants.map((v) => v.id)).toEqual(['no-lost-job']);
    // Still reported as a duplicate: the report shows what the ledger holds.
    expect(report.duplicatedEffects).toHaveLength(1);
    expect(report.verdict).toBe('pass');
  });
});

describe('judgeScenario: the secrets re-check of the report', () => {
  it('passes a clean run: the secret is redacted everywhere, the report included', () => {
    const report = judged(runOf(cleanEvidence()));
    expect(report.invariants.find((v) => v.id === 'secrets-redacted')!.status).toBe('held');
    expect(report.verdict).toBe('pass');
  });

  it('catches a secret that only the report entry holds, masked, in the verdict’s own place', () => {
    const report = judged(runOf(cleanEvidence(), { description: `charges with key ${SECRET} twice` }));
    const index = INVARIANT_IDS.indexOf('secrets-redacted');
    expect(report.invariants.map((v) => v.id)).toEqual(INVARIANT_IDS);
    const verdict = report.invariants[index]!;
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(
        /^secret sk-…\(40 chars\) found in artefact report\.json \(this scenario\) line 1: ….*"description":"charges with key \[sk-…\(40 chars\)\] twice"/,
      ),
    ]);
    expect(verdict.evidence.join('\n')).not.toContain(SECRET);
    expect(report.verdict).toBe('fail');
  });

  it('is not made when the scenario does not name secrets-redacted', () => {
    const report = judged(runOf(cleanEvidence(), { description: `charges with key ${SECRET} twice`, invariants: ['no-lost-job'] }));
    expect(report.invariants.map((v) => v.id)).toEqual(['no-lost-job']);
    expect(report.verdict).toBe('pass');
  });
});
