import { describe, expect, it } from 'vitest';
import { stepKey } from '../../../src/saga/plan.js';
import { noDuplicateEffect } from '../../../src/scenarios/invariants/no-duplicate-effect.js';
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

  it('counts only side-effect steps (a read leaves no row) and judges only done jobs', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.read)).claim('w1').run().complete();
    b.job(planOf(STEPS.email)).claim('w1').execute('email', 'failed').review('step email failed for good');
    const verdict = judged(noDuplicateEffect, b.build());
    expect(verdict).toMatchObject({ status: 'held', note: 'the ledger holds no effect' });
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
