import { describe, expect, it } from 'vitest';
import { sagaCompensation } from '../../../src/judge/invariants/saga-compensation.js';
import { cleanEvidence, EvidenceBuilder, type JobScript, jobIn, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

const COMPENSATED = 'compensated: step email (send_email) failed for good; undone in reverse order: branch, write';
const FAILED = 'COMPENSATION_FAILED: undoing step branch with delete_branch failed (permanent): manual recovery required';

/** write, branch, then email failed for good: the saga is handed to coord-1. */
function saga(plan = planOf(STEPS.write, STEPS.branch, STEPS.email)): { b: EvidenceBuilder; job: JobScript } {
  const b = new EvidenceBuilder();
  const job = b.job(plan, { expect: { status: 'compensated' } });
  job.claim('w1');
  for (const step of plan.steps.slice(0, -1)) job.execute(step.step_id);
  job.execute(plan.steps[plan.steps.length - 1]!.step_id, 'failed', { detail: 'PermanentError: HTTP 403' });
  job.beginCompensation('step failed for good (permanent)').takeSaga('coord-1');
  return { b, job };
}

describe('saga-compensation', () => {
  it('holds for a compensated saga, a failed compensation with its incident, and irreversible steps named', () => {
    expect(judged(sagaCompensation, cleanEvidence())).toMatchObject({ status: 'held', note: 'no saga was compensated in this drill' });
    expect(judged(sagaCompensation, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
    const { b, job } = saga(planOf(STEPS.write, STEPS.email, STEPS.publish));
    job
      .compensate('email', 'skipped')
      .compensate('write')
      .finishCompensation(
        'compensated: step publish failed for good; undone in reverse order: write; not reversible, for a person: email (send_email)',
      );
    expect(judged(sagaCompensation, b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it('fails when compensations run out of reverse order', () => {
    const { b, job } = saga();
    job.compensate('write').compensate('branch').finishCompensation(COMPENSATED);
    const verdict = judged(sagaCompensation, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(
        /^job 1 \(key [0-9a-f]{8}…\): compensated out of order: branch \(step 2, tx #\d+ branch compensate started .*\) after write \(step 1, tx #\d+ write compensate started .*\); reverse plan order undoes branch first$/,
      ),
    ]);
  });

  it('fails when "compensated" leaves a completed step undone', () => {
    const { b, job } = saga();
    job.compensate('write').finishCompensation(COMPENSATED);
    const verdict = judged(sagaCompensation, b.build());
    expect(verdict.evidence).toEqual([
      expect.stringMatching(
        /^job 1 .*: ended compensated, but step branch \(create_branch\) took effect and was not compensated \(no compensate row\)$/,
      ),
      expect.stringMatching(
        new RegExp(`^job 1 .*: ended compensated, but the ledger holds 0 compensation\\(s\\) of step branch \\(key ${job.keyOf('branch')}\\)$`),
      ),
    ]);
  });

  it('fails when "compensated" is not backed by the ledger: a compensation missing, or applied twice', () => {
    const { b, job } = saga();
    job.compensate('branch').compensate('write').finishCompensation(COMPENSATED);
    const missing = b.build();
    missing.effects = missing.effects.filter((e) => e.compensates !== job.keyOf('write'));
    expect(judged(sagaCompensation, missing).evidence).toEqual([
      expect.stringMatching(
        new RegExp(`^job 1 .*: ended compensated, but the ledger holds 0 compensation\\(s\\) of step write \\(key ${job.keyOf('write')}\\)$`),
      ),
    ]);
    const twice = b.build();
    const undo = twice.effects.find((e) => e.compensates === job.keyOf('branch'))!;
    twice.effects.push({ ...undo, seq: 77, key: `${undo.key}-again` });
    const verdict = judged(sagaCompensation, twice);
    expect(verdict.text).toMatch(
      /job 1 .*: step branch's compensation was applied 2 times: ledger #\d+ delete_branch by coord-1 .*; ledger #77 delete_branch/,
    );
    expect(verdict.text).toMatch(/ended compensated, but the ledger holds 2 compensation\(s\) of step branch/);
  });

  it('fails when "compensated" does not name an irreversible step that took effect', () => {
    const { b, job } = saga(planOf(STEPS.write, STEPS.email, STEPS.publish));
    job.compensate('write').finishCompensation('compensated: undone in reverse order: write');
    expect(judged(sagaCompensation, b.build()).evidence).toEqual([
      expect.stringMatching(
        /^job 1 .*: ended compensated, but irreversible step email \(send_email\) took effect and no compensate skipped row names it for a person$/,
      ),
    ]);
  });

  it('fails when "compensated" ignores an effect the world has but the log lost (the checkpoint died with its worker)', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write, STEPS.branch, STEPS.email));
    job.claim('w1').execute('write').execute('branch', 'started', { apply: true }).expire('coord-1');
    job.claim('w2').execute('branch', 'failed', { detail: 'PermanentError: HTTP 403' });
    job
      .beginCompensation('step branch failed for good')
      .takeSaga('coord-1')
      .compensate('write')
      .finishCompensation('compensated: undone in reverse order: write');
    expect(judged(sagaCompensation, b.build()).text).toMatch(
      /job 1 .*: ended compensated, but step branch \(create_branch\) took effect and was not compensated \(no compensate row\)/,
    );
  });

  it('fails when a failed compensation ends as "compensated" without an incident', () => {
    const { b, job } = saga();
    job.compensate('branch', 'failed', 'PermanentError: HTTP 403').finishCompensation(COMPENSATED);
    const verdict = judged(sagaCompensation, b.build());
    expect(verdict.text).toMatch(
      /job 1 .*: compensation of step branch failed \(tx #\d+ branch compensate failed .*\) and was never retried to success, but no incident was recorded for it/,
    );
    expect(verdict.text).toMatch(
      /job 1 .*: compensation of step branch failed \(tx #\d+ .*\), yet the saga ended compensated \(reason "compensated: step email .*\), not compensation_failed/,
    );
  });

  it('holds when a passing compensation failure was retried to success', () => {
    const { b, job } = saga();
    job.compensate('branch', 'failed', 'TransientError: HTTP 503').compensate('branch').compensate('write').finishCompensation(COMPENSATED);
    expect(judged(sagaCompensation, b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it('fails for compensation_failed with no incident for a person', () => {
    const { b, job } = saga();
    job.compensate('branch', 'failed', 'PermanentError: HTTP 403').finishCompensation(FAILED);
    const verdict = judged(sagaCompensation, b.build());
    expect(verdict.evidence).toEqual([
      expect.stringMatching(/compensation of step branch failed .* but no incident was recorded for it$/),
      expect.stringMatching(/^job 1 .*: ended compensation_failed but no incident was recorded for a person$/),
    ]);
  });

  it.each([
    ['a reason that speaks of neither', 'done with it', 'review', /reason "done with it"/],
    ['a reason that says compensated', COMPENSATED, 'review', /reason "compensated: step email/],
    ['a reason that says compensated, awaiting approval', COMPENSATED, 'awaiting_approval', /reason "compensated: step email/],
  ] as const)(
    'fails when a saga ends in review with an outcome that is neither compensated nor compensation_failed (%s)',
    (_what, reason, outcome, said) => {
      const { b, job } = saga();
      job.compensate('branch').compensate('write').finishCompensation(reason, outcome);
      const verdict = judged(sagaCompensation, b.build());
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          new RegExp(`^job 1 .*: its saga ended in review as ${outcome} \\(${said.source}.*\\), neither compensated nor compensation_failed$`),
        ),
      ]);
    },
  );

  it("judges a saga's end by its outcome, not by its reason's words", () => {
    const { b, job } = saga();
    job.compensate('branch').compensate('write').finishCompensation('all undone, see the log', 'compensated');
    expect(judged(sagaCompensation, b.build())).toMatchObject({ status: 'held', evidence: [] });
    const failed = saga();
    // A reason that claims success does not hide an outcome of compensation_failed: its incident is still required.
    failed.job.compensate('branch', 'failed', 'PermanentError: HTTP 403').finishCompensation(COMPENSATED, 'compensation_failed');
    expect(judged(sagaCompensation, failed.b.build()).text).toMatch(
      /^job 1 .*: ended compensation_failed but no incident was recorded for a person$/m,
    );
  });

  it('fails for compensating a step that never took effect', () => {
    const { b, job } = saga();
    job.compensate('email').compensate('branch').compensate('write');
    b.evidence.effects = b.evidence.effects.filter((e) => e.compensates !== job.keyOf('email'));
    job.finishCompensation(COMPENSATED);
    expect(judged(sagaCompensation, b.build()).text).toMatch(
      /job 1 .*: tx #\d+ email compensate started .* compensates step email, which cannot have taken effect \(no success, unknown or unfinished call in the log, nothing in the ledger\)/,
    );
  });

  it('holds when a step whose outcome was unknown is compensated, though the world never had it', () => {
    // The last attempt timed out on write_file (idempotent, so no reconcile): the saga undoes it anyway,
    // and restore_file_version records "nothing to compensate" as its effect.
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.branch, STEPS.write), { maxAttempts: 1, expect: { status: 'compensated' } });
    job.claim('w1').execute('branch').execute('write', 'unknown', { detail: 'UnknownOutcomeError: world call write_file: timed out' });
    job
      .beginCompensation('step write (write_file) failed for good (unknown outcome, retries exhausted)')
      .takeSaga('coord-1')
      .compensate('write')
      .compensate('branch');
    job.finishCompensation('compensated: step write (write_file) failed for good; undone in reverse order: write, branch');
    expect(judged(sagaCompensation, b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it.each(['compensated', 'compensation_failed'] as const)(
    'fails for compensations, or a saga outcome (%s), of a job that never went to compensating',
    (outcome) => {
      const { b, jobs } = cleanBuilder2();
      jobs.one.takeSaga('coord-1').compensate('write');
      const evidence = b.build();
      Object.assign(jobIn(evidence, jobs.two.id), { status: 'review', outcome, reviewReason: 'nothing to undo' });
      const verdict = judged(sagaCompensation, evidence);
      expect(verdict.text).toMatch(/job 1 .*: tx #\d+ write compensate started .*, but the job never went to compensating/);
      expect(verdict.text).toMatch(new RegExp(`job 2 .*: ended ${outcome}, but the job never went to compensating`));
    },
  );

  it('does not read a saga into a review reason: a plain review that says "compensated: ..." is no saga', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.email), { expect: { status: 'review' } })
      .claim('w1')
      .execute('email', 'failed', { detail: 'PermanentError: HTTP 403' })
      .review('compensated: nothing was done');
    expect(judged(sagaCompensation, b.build())).toMatchObject({ status: 'held', evidence: [], note: 'no saga was compensated in this drill' });
  });
});

function cleanBuilder2(): { b: EvidenceBuilder; jobs: { one: JobScript; two: JobScript } } {
  const b = new EvidenceBuilder();
  const one = b.job(planOf(STEPS.write)).claim('w1').run().complete();
  const two = b.job(planOf(STEPS.branch)).claim('w1').run().complete();
  return { b, jobs: { one, two } };
}
