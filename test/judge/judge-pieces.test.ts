import { describe, expect, it } from 'vitest';
import { duplicatedEffects, duplicatesOfJob } from '../../src/judge/duplicated-effects.js';
import type { Evidence, TimelineEvent } from '../../src/judge/evidence.js';
import { jobReport, outcomeOf } from '../../src/judge/job-reports.js';
import { unfiredFaults } from '../../src/judge/judge.js';
import { recoveryTimes } from '../../src/judge/recovery-times.js';
import { utc } from '../../src/kernel/clock.js';
import { jobLife } from '../../src/report/job-life.js';
import { stepKey } from '../../src/saga/plan.js';
import { cleanBuilder, digestOf, EvidenceBuilder, jobIn, planOf, richBuilder, STEPS, T0 } from './invariants/evidence-builder.js';

/*
 * The judge's pieces, each on the smallest evidence that shows it: recovery
 * times, a job's outcome and report, duplicated effects and their jobs, and
 * the faults that never fired.
 */

function killAt(b: EvidenceBuilder, fields: Partial<TimelineEvent> = {}): TimelineEvent {
  const event: TimelineEvent = { at: b.tick(), kind: 'kill', detail: 'SIGKILL', ...fields };
  b.evidence.timeline.push(event);
  return event;
}

describe('recoveryTimes', () => {
  it('ignores what happened before the kill, and counts the first claim and the first settling after it', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    // An earlier life: claimed, retried. Neither is a recovery from the kill that comes later.
    job.claim('w1').retry();
    job.claim('w2');
    const kill = killAt(b, { process: 'w2#1', point: 'after_claim', job: job.id });
    job.expire().claim('w1').run().complete();
    const [times] = recoveryTimes(b.build());
    const after = b.evidence.events.filter((e) => e.jobId === job.id && e.at >= kill.at);
    expect(times).toMatchObject({
      jobId: job.id,
      reclaimedAt: after.find((e) => e.to === 'running')!.at,
      settledAt: after.find((e) => e.to === 'done')!.at,
    });
    expect(times!.killToReclaimMs).toBe(Date.parse(times!.reclaimedAt!) - Date.parse(kill.at));
    expect(times!.killToReclaimMs).toBeGreaterThan(0);
    expect(times!.killToSettledMs).toBeGreaterThan(times!.killToReclaimMs!);
  });

  it('a refused stale write is not a settling; a job still running at the end has no settle time', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    job.claim('w1');
    killAt(b, { process: 'w1#1', job: job.id });
    job.refused('w1', 1, 'done');
    const [times] = recoveryTimes(b.build());
    expect(times).toMatchObject({ reclaimedAt: null, settledAt: null, killToReclaimMs: null, killToSettledMs: null });
  });

  it('one entry per kill, in timeline order; a kill with no process or point says so', () => {
    const b = new EvidenceBuilder();
    const first = killAt(b);
    const second = killAt(b, { process: 'coordinator#1', point: 'during_compensation' });
    b.evidence.timeline.push({ at: b.tick(), kind: 'exit', detail: 'killed by SIGKILL' });
    expect(recoveryTimes(b.build())).toEqual([
      {
        process: '?',
        killedAt: first.at,
        point: null,
        jobId: null,
        reclaimedAt: null,
        settledAt: null,
        killToReclaimMs: null,
        killToSettledMs: null,
      },
      {
        process: 'coordinator#1',
        killedAt: second.at,
        point: 'during_compensation',
        jobId: null,
        reclaimedAt: null,
        settledAt: null,
        killToReclaimMs: null,
        killToSettledMs: null,
      },
    ]);
  });

  it('a kill at the same instant as the claim counts it', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    job.claim('w1');
    const claimedAt = b.evidence.events.at(-1)!.at;
    b.evidence.timeline.push({ at: claimedAt, kind: 'kill', process: 'w1#1', detail: 'SIGKILL', job: job.id });
    expect(recoveryTimes(b.build())[0]).toMatchObject({ reclaimedAt: claimedAt, killToReclaimMs: 0 });
  });
});

describe('outcomeOf and jobReport', () => {
  it("is the store's status, or for a job in review the saga's outcome", () => {
    const { b, jobs } = richBuilder();
    const evidence = b.build();
    const outcome = (id: string) => outcomeOf(jobIn(evidence, id));
    expect(outcome(jobs.died.id)).toBe('done');
    expect(outcome(jobs.exhausted.id)).toBe('review');
    expect(outcome(jobs.saga.id)).toBe('compensated');
    expect(outcome(jobs.sagaFailed.id)).toBe('compensation_failed');
    // A review written with no outcome (an older store) is plain review.
    expect(outcomeOf({ ...jobIn(evidence, jobs.exhausted.id), outcome: null })).toBe('review');
    expect(outcomeOf({ ...jobIn(evidence, jobs.died.id), status: 'running', outcome: null })).toBe('running');
  });

  it('a job awaiting approval reports it, and a review expectation holds', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.publish), { expect: { status: 'review' } });
    job.claim('w1').review('awaiting approval of publish', undefined, 'awaiting_approval');
    const report = jobReport({ key: job.key, expect: { status: 'review' }, maxAttempts: 3 }, b.build(), []);
    expect(report).toMatchObject({
      id: job.id,
      actual: { status: 'awaiting_approval', reason: 'awaiting approval of publish' },
      matches: true,
      attempts: 1,
      located: true,
    });
  });

  it("orders a job's life in one time base: a claim stamped by a clock running ahead still comes before the effect it led to", () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    job.claim('w1').execute('write').complete();
    const evidence = b.build();
    // w1's clock runs 250 ms ahead of the harness's (the world's stamps are the harness's time): all it wrote is stamped late.
    const late = (at: string) => new Date(Date.parse(at) + 250).toISOString();
    for (const event of evidence.events) if (event.worker === 'w1') event.at = late(event.at);
    for (const row of evidence.txLog) if (row.worker === 'w1') row.at = late(row.at);
    const expected = { key: job.key, expect: { status: 'done' as const }, maxAttempts: 3 };
    const kinds = (e: Evidence) => jobReport(expected, e, []).events.map((event) => event.kind);
    // As written, the effect comes first: before the claim that led to it.
    expect(kinds({ ...evidence, queueClock: 'server' })).toEqual(['transition', 'effect', 'transition', 'checkpoint', 'checkpoint', 'transition']);
    const measured: Evidence = { ...evidence, queueClock: 'caller', clocks: [{ process: 'w1', lowMs: 249, highMs: 251, samples: 3 }] };
    expect(kinds(measured)).toEqual(['transition', 'transition', 'checkpoint', 'effect', 'checkpoint', 'transition']);
    const lines = jobLife(jobReport(expected, measured, []));
    const claim = lines.findIndex((line) => line.includes('pending      -> running'));
    const effect = lines.findIndex((line) => line.includes('effect  write'));
    expect(claim).toBeGreaterThan(0);
    expect(effect).toBeGreaterThan(claim);
    // Shown at the harness's time, with the stamp as written and the clock that wrote it.
    expect(lines[claim]).toMatch(/^2026-08-25T10:00:00\.300Z {2}state .* \[stamped 2026-08-25T10:00:00\.550Z by w1's clock \+250 ms\]$/);
  });

  it('a job whose last transition is not where the store says it is, is not located', () => {
    const { b, jobs } = cleanBuilder();
    const evidence = b.build();
    evidence.events = evidence.events.filter((e) => !(e.jobId === jobs[0].id && e.to === 'done'));
    expect(jobReport({ key: jobs[0].key, expect: { status: 'done' }, maxAttempts: 3 }, evidence, []).located).toBe(false);
  });
});

describe('duplicatedEffects and duplicatesOfJob', () => {
  it('finds each key applied more than once, with who applied it, in the order the keys were first applied', () => {
    const { b, jobs } = cleanBuilder();
    jobs[1].apply('branch', { worker: 'w9', attempt: 4 });
    jobs[0].apply('email', { worker: 'w2', attempt: 2 });
    jobs[0].apply('email', { worker: 'w3', attempt: 3 });
    const evidence = b.build();
    const found = duplicatedEffects(evidence.effects);
    expect(found.map(({ key, tool, times }) => ({ key, tool, times }))).toEqual([
      { key: stepKey(jobs[0].key, 'email'), tool: 'send_email', times: 3 },
      { key: stepKey(jobs[1].key, 'branch'), tool: 'create_branch', times: 2 },
    ]);
    expect(found[0]!.appliedBy).toHaveLength(3);
    expect(found[0]!.appliedBy.slice(1).map((line) => line.replace(/ pid \d+ /, ' pid N ').replace(/ at .*$/, ''))).toEqual([
      'w2 pid N attempt 2',
      'w3 pid N attempt 3',
    ]);
    expect(duplicatedEffects(cleanBuilder().b.build().effects)).toEqual([]);
  });

  it("gives a job the duplicates whose keys start with its key's first 16 characters, and no other job's", () => {
    const { b, jobs } = cleanBuilder();
    jobs[0].apply('email');
    jobs[1].apply('branch');
    const found = duplicatedEffects(b.build().effects);
    expect(duplicatesOfJob(found, jobs[0].key)).toEqual([{ key: stepKey(jobs[0].key, 'email'), tool: 'send_email', times: 2 }]);
    expect(duplicatesOfJob(found, jobs[1].key)).toEqual([{ key: stepKey(jobs[1].key, 'branch'), tool: 'create_branch', times: 2 }]);
    expect(duplicatesOfJob(found, jobs[2].key)).toEqual([]);
    expect(duplicatesOfJob(found, digestOf('someone else'))).toEqual([]);
  });

  it("counts a compensation applied twice against its job's saga", () => {
    const { b, jobs } = richBuilder();
    jobs.saga.apply('branch', { compensates: true, worker: 'coord-2' });
    const found = duplicatedEffects(b.build().effects);
    expect(duplicatesOfJob(found, jobs.saga.key)).toEqual([
      { key: `${stepKey(jobs.saga.key, 'branch')}:compensate`, tool: 'delete_branch', times: 2 },
    ]);
    expect(duplicatesOfJob(found, jobs.sagaFailed.key)).toEqual([]);
  });
});

describe('unfiredFaults', () => {
  it('lists the point faults, then the world faults, that never fired', () => {
    const lines = unfiredFaults({
      pointFaults: [
        { rule: { id: 'f1', point: 'after_write', action: 'crash' }, hits: 1, fires: 1 },
        { rule: { id: 'f2', point: 'before_complete', action: 'crash', first: 1 }, hits: 0, fires: 0 },
      ],
      worldFaults: [
        {
          armed: { id: 1, spec: { match: {}, action: { type: 'drop' }, times: 1 }, fired: 0, remaining: 1, armedAt: utc(T0), clearedAt: null },
          describe: 'drop on tool send_email',
        },
        {
          armed: { id: 2, spec: { match: {}, action: { type: 'drop' }, times: 1 }, fired: 1, remaining: 0, armedAt: utc(T0), clearedAt: null },
          describe: 'drop on call #3',
        },
      ],
    });
    expect(lines).toEqual(['crash at before_complete (rule f2, first 1) never fired: 0 hits', 'world fault drop on tool send_email never fired']);
  });

  it('none when every fault fired, or none was armed', () => {
    expect(unfiredFaults({ pointFaults: [], worldFaults: [] })).toEqual([]);
  });
});
