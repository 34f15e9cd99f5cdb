import { describe, expect, it } from 'vitest';
import { noLostJob } from '../../../src/judge/invariants/no-lost-job.js';
import { cleanEvidence, EvidenceBuilder, jobIn, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

describe('no-lost-job', () => {
  it('holds when every accepted job ended done or in review', () => {
    expect(judged(noLostJob, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(noLostJob, richBuilder().b.build()).status).toBe('held');
  });

  it('fails when the drill never reached rest, and says so', () => {
    const evidence = cleanEvidence();
    evidence.atRest = false;
    jobIn(evidence, 2).status = 'retry';
    const verdict = judged(noLostJob, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(/never reached rest before its deadline: 1 job\(s\) unfinished \(job 2 retry\)/);
  });

  it('fails for an accepted key with no job in the store', () => {
    const evidence = cleanEvidence();
    evidence.jobs = evidence.jobs.filter((job) => job.id !== '1');
    const verdict = judged(noLostJob, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(new RegExp(`accepted key ${evidence.accepted[0]!.key.slice(0, 8)}…: no job with this key in the store \\(lost\\)`));
  });

  it('fails for a key every enqueue of which failed, naming why, never calling it lost', () => {
    const evidence = cleanEvidence();
    evidence.jobs = evidence.jobs.filter((job) => job.id !== '1');
    const first = evidence.accepted[0]!;
    evidence.accepted[0] = { ...first, enqueueAttempts: 0, createdCount: 0, enqueueFailures: ['the queue child q.py exited (code 7)'] };
    const verdict = judged(noLostJob, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(
      new RegExp(
        `accepted key ${first.key.slice(0, 8)}…: never in the store: every enqueue of it failed \\(the queue child q\\.py exited \\(code 7\\)\\)`,
      ),
    );
    expect(verdict.text).not.toMatch(/\(lost\)/);
  });

  it.each([
    [
      'retry',
      (b: EvidenceBuilder) => b.job(planOf(STEPS.email)).claim('w1').retry(),
      /job 1 \(key [0-9a-f]{8}…\): retry at rest \(attempts 1\/3, next run at .*last error "TransientError: HTTP 503"\)/,
    ],
    ['pending', (b: EvidenceBuilder) => b.job(planOf(STEPS.email)), /job 1 \(key [0-9a-f]{8}…\): pending at rest \(attempts 0\/3/],
    [
      'running',
      (b: EvidenceBuilder) => b.job(planOf(STEPS.email)).claim('w2'),
      /job 1 \(key [0-9a-f]{8}…\): running at rest, leased by w2 until 2026-08-25T10:00:30\.200Z \(epoch 1, attempts 1\/3\)/,
    ],
    [
      'compensating',
      (b: EvidenceBuilder) =>
        b
          .job(planOf(STEPS.write, STEPS.email))
          .claim('w1')
          .execute('write')
          .execute('email', 'failed')
          .beginCompensation('step email failed for good'),
      /job 1 \(key [0-9a-f]{8}…\): compensating at rest: its saga never finished \(no coordinator holds it/,
    ],
  ] as const)('fails for a job left %s at rest, naming it', (_status, make, line) => {
    const b = new EvidenceBuilder();
    make(b);
    const verdict = judged(noLostJob, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(line);
  });

  it('fails for an unfinished job that no producer reported, too', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.email), { accepted: false }).claim('w1').retry();
    const verdict = judged(noLostJob, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(/job 1 \(key .*\) \(not in the accepted list\): retry at rest/);
    expect(verdict.note).toBe('no job was accepted in this drill');
  });
});
