import { describe, expect, it } from 'vitest';
import { attemptsBounded } from '../../../src/judge/invariants/attempts-bounded.js';
import { cleanEvidence, jobIn, judged, richBuilder } from './evidence-builder.js';

describe('attempts-bounded', () => {
  it('holds when attempts stay within max_attempts and match the claims (requeues and retries included)', () => {
    expect(judged(attemptsBounded, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(attemptsBounded, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it('fails when attempts exceed max_attempts', () => {
    const { b, jobs } = richBuilder();
    const evidence = b.build();
    jobIn(evidence, jobs.exhausted.id).maxAttempts = 1;
    const verdict = judged(attemptsBounded, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(/job 6 \(key [0-9a-f]{8}…\): attempts 2 exceed max_attempts 1/);
    expect(verdict.text).toMatch(/job 6 .*: claim #\d+ by w2 at .* is attempt 2, past max_attempts 1/);
  });

  it('fails when attempts and the claims in the history disagree, listing the claims', () => {
    const evidence = cleanEvidence();
    jobIn(evidence, 3).attempts = 2;
    const verdict = judged(attemptsBounded, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(/^job 3 \(key [0-9a-f]{8}…\): attempts is 2, but the history holds 1 claim\(s\): #\d+ by w1 at 2026-/),
    ]);
  });

  it('fails when a claim records the wrong attempt number', () => {
    const { b, jobs } = richBuilder();
    const evidence = b.build();
    const claims = evidence.events.filter((e) => e.jobId === jobs.died.id && e.to === 'running');
    claims[1]!.attempt = 1;
    const verdict = judged(attemptsBounded, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(new RegExp(`job 1 .*: claim #${claims[1]!.seq} by w2 at .* records attempt 1, but it is claim 2 of the job`));
  });
});
