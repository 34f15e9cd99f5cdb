import { describe, expect, it } from 'vitest';
import { reviewSticky } from '../../../src/judge/invariants/review-sticky.js';
import { cleanEvidence, EvidenceBuilder, jobIn, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

/** A job sent to review by its worker; `then` writes what happens next. */
function reviewed(then: (job: ReturnType<EvidenceBuilder['job']>) => void): EvidenceBuilder {
  const b = new EvidenceBuilder();
  const job = b.job(planOf(STEPS.email));
  job.claim('w1').review('step email failed for good (permanent)');
  then(job);
  return b;
}

describe('review-sticky', () => {
  it('holds when only a person takes jobs out of review', () => {
    expect(judged(reviewSticky, cleanEvidence())).toMatchObject({ status: 'held', note: 'no job went to review in this drill' });
    expect(judged(reviewSticky, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(reviewSticky, reviewed((job) => job.requeue('alice').claim('w2').execute('email').complete()).build()).status).toBe('held');
  });

  it.each([
    [
      'a worker',
      (job: ReturnType<EvidenceBuilder['job']>) => job.transition('pending', 'worker', 'w1', 'requeued'),
      /left review without a person's requeue: event #4 review→pending by worker w1/,
    ],
    [
      'a timer (the coordinator)',
      (job: ReturnType<EvidenceBuilder['job']>) => job.transition('retry', 'coordinator', 'coord-1', 'retry later'),
      /left review without a person's requeue: event #4 review→retry by coordinator coord-1/,
    ],
    [
      'a person, straight to running',
      (job: ReturnType<EvidenceBuilder['job']>) => job.transition('running', 'human', null, 'run it'),
      /left review without a person's requeue: event #4 review→running by human/,
    ],
  ])('fails when %s takes a job out of review', (_who, leave, line) => {
    const verdict = judged(reviewSticky, reviewed(leave).build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([expect.stringMatching(new RegExp(`^job 1 \\(key [0-9a-f]{8}…\\): ${line.source}`))]);
  });

  it('fails when the history moves on from review with no recorded way out', () => {
    const evidence = reviewed((job) => job.requeue('alice').claim('w2').complete()).build();
    evidence.events = evidence.events.filter((e) => e.actor !== 'human');
    expect(judged(reviewSticky, evidence).text).toMatch(
      /job 1 .*: was in review, and its next change does not start from review \(no recorded way out\): event #5 pending→running by worker w2/,
    );
  });

  it('fails when the store has a job out of review that its history leaves in review', () => {
    const evidence = reviewed(() => undefined).build();
    jobIn(evidence, 1).status = 'pending';
    expect(judged(reviewSticky, evidence).text).toMatch(
      /job 1 .*: its history ends in review, but the store says pending: it left review with no event at all/,
    );
  });
});
