import { describe, expect, it } from 'vitest';
import { noDuplicateEffect } from '../../../src/judge/invariants/no-duplicate-effect.js';
import { stepKey } from '../../../src/saga/plan.js';
import { cleanBuilder, cleanEvidence, EvidenceBuilder, jobIn, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

describe('no-duplicate-effect', () => {
  it('holds when each key was applied once and each done job has its effects once', () => {
    expect(judged(noDuplicateEffect, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(noDuplicateEffect, richBuilder().b.build()).status).toBe('held');
  });

  it('fails for a non-idempotent key applied twice, naming the key, the tool, the times and who applied it', () => {
    const { b, jobs } = cleanBuilder();
    const [one] = jobs;
    // Attempt 1 sent the email and lost the answer; attempt 2 sent it again blind.
    b.effect({
      key: one.keyOf('email'),
      tool: 'send_email',
      idempotent: false,
      job: String(one.id),
      step: 'email',
      attempt: 2,
      worker: 'w2',
      compensates: null,
    });
    const verdict = judged(noDuplicateEffect, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence[0]).toMatch(
      new RegExp(
        `^key ${one.keyOf('email')} \\(send_email, not idempotent, applied 2 times\\): ledger #2 send_email by w1 attempt 1 pid \\d+ at .*; ledger #\\d+ send_email by w2 attempt 2 pid \\d+`,
      ),
    );
    expect(verdict.text).toMatch(/job 1 \(key [0-9a-f]{8}…\) is done, but step email \(send_email\) is in the ledger 2 times/);
  });

  it('fails for an idempotent tool with two rows under one key: the world dedupe broke', () => {
    const { b, jobs } = cleanBuilder();
    const two = jobs[1];
    b.effect({
      key: two.keyOf('branch'),
      tool: 'create_branch',
      idempotent: true,
      job: String(two.id),
      step: 'branch',
      attempt: 1,
      worker: 'w2',
      compensates: null,
    });
    const verdict = judged(noDuplicateEffect, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(/\(create_branch, idempotent by key, yet applied 2 times\)/);
  });

  it('fails for a done job whose side-effect step is not in the ledger', () => {
    const evidence = cleanEvidence();
    const job = jobIn(evidence, 2);
    const key = stepKey(job.key, 'publish');
    evidence.effects = evidence.effects.filter((effect) => effect.key !== key);
    const verdict = judged(noDuplicateEffect, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      `job 2 (key ${job.key.slice(0, 8)}…) is done, but step publish (publish_article) is in the ledger 0 times under key ${key}`,
    ]);
  });

  it('judges only side-effect steps (a read leaves no row), of every job whatever its end', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.read)).claim('w1').run().complete();
    b.job(planOf(STEPS.email)).claim('w1').execute('email', 'failed').review('step email failed for good');
    const verdict = judged(noDuplicateEffect, b.build());
    expect(verdict).toMatchObject({ status: 'held', judged: 1, note: 'the ledger holds no effect' });
  });

  it('holds for jobs in review whose log and ledger agree: an unknown outcome applied once, a failure never applied, a step never reached', () => {
    const b = new EvidenceBuilder();
    // The email was sent and its answer lost: in doubt, so once in the ledger is right.
    b.job(planOf(STEPS.email)).claim('w1').execute('email', 'unknown', { apply: true }).review('outcome of step email is unknown');
    // Failed before applying, and the email after it never ran.
    b.job(planOf(STEPS.publish, STEPS.email)).claim('w1').execute('publish', 'failed').review('step publish failed for good');
    // Reconciled as not executed after a dead holder's call, then run again once.
    const retried = b.job(planOf(STEPS.email));
    retried.claim('w1').execute('email', 'started').expire('coord-1', 'coordinator', { stepId: 'email', status: 'not_executed' });
    retried.claim('w2').execute('email').review('a person must look at it');
    expect(judged(noDuplicateEffect, b.build())).toMatchObject({ status: 'held', judged: 4, evidence: [] });
  });

  it('fails for a job in review whose log says a step succeeded that the ledger never saw', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.email));
    job.claim('w1').execute('email', 'success', { apply: false }).review('held for a person');
    const verdict = judged(noDuplicateEffect, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toHaveLength(1);
    expect(verdict.evidence[0]).toMatch(
      /^job 1 \(key [0-9a-f]{8}…\) step email \(send_email\): the log says it succeeded \(tx #2 email execute success /,
    );
    expect(verdict.evidence[0]).toMatch(new RegExp(`, but the ledger holds it 0 times under key ${job.keyOf('email')}$`));
  });

  it('fails for a job in review whose step the log says cannot have taken effect, yet the world applied', () => {
    const b = new EvidenceBuilder();
    // The world applied the email while the log says the call failed before applying.
    const failed = b.job(planOf(STEPS.email));
    failed.claim('w1').execute('email', 'failed', { apply: true }).review('step email failed for good');
    // An effect for a step no call of which was ever started (a blocked plan).
    const blocked = b.job(planOf(STEPS.publish));
    blocked.claim('w1').review('policy violation, blocked before any step ran');
    blocked.apply('publish', { worker: 'w1' });
    // Reconciled as not executed, yet the world has it.
    const reconciled = b.job(planOf(STEPS.email));
    reconciled.claim('w1').execute('email', 'started', { apply: true }).reconcile('email', 'not_executed').review('a person must look at it');
    const verdict = judged(noDuplicateEffect, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(
        /^job 1 .* step email \(send_email\): the log says it cannot have taken effect \(last: tx #2 email execute failed .*\), yet the world applied it/,
      ),
      expect.stringMatching(
        /^job 2 .* step publish \(publish_article\): the log says it cannot have taken effect \(no call of it was ever started\), yet the world applied it/,
      ),
      expect.stringMatching(
        /^job 3 .* step email \(send_email\): the log says it cannot have taken effect \(last: tx #\d+ email reconcile not_executed .*\), yet the world applied it/,
      ),
    ]);
  });

  it('fails for a compensation the log says succeeded that the ledger never saw, and for one the ledger has that was never started', () => {
    const { b, jobs } = richBuilder();
    const evidence = b.build();
    // The saga compensated branch and write: drop the write's compensation from the ledger.
    const dropped = evidence.effects.find((e) => e.compensates === jobs.saga.keyOf('write'))!;
    evidence.effects = evidence.effects.filter((e) => e !== dropped);
    // And the clean job of the died script gets a compensation nobody started.
    evidence.effects.push({
      ...dropped,
      seq: 999,
      key: `${jobs.died.keyOf('write')}:compensate`,
      compensates: jobs.died.keyOf('write'),
      job: jobs.died.id,
    });
    const verdict = judged(noDuplicateEffect, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(/^job 1 .*: step write's compensation was never started in the log, yet the world applied it under key /),
      expect.stringMatching(
        /^job 4 .*: the log says step write's compensation succeeded \(tx #\d+ write compensate success .*\), but the ledger holds 0 compensation\(s\) of it$/,
      ),
    ]);
  });

  it('says when a done job has no plan to count effects against', () => {
    const evidence = cleanEvidence();
    evidence.accepted = [];
    jobIn(evidence, 1).payload = '{"to":"x"}';
    const verdict = judged(noDuplicateEffect, evidence);
    expect(verdict.status).toBe('held');
    expect(verdict.note).toMatch(/job 1 \(key .*\) is not a plan job \(action plan\): its effects were not counted/);
  });
});
