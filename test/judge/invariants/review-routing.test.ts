import { describe, expect, it } from 'vitest';
import { reviewRouting } from '../../../src/judge/invariants/review-routing.js';
import { cleanEvidence, EvidenceBuilder, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

const LOST = 'UnknownOutcomeError: world call send_email: response lost; the effect may have happened';
const FORBIDDEN = 'PermanentError: world call publish_article: HTTP 403: forbidden';

describe('review-routing', () => {
  it('holds when doubt is reconciled, permanent errors wait for a person, and exhausted retries end in review', () => {
    expect(judged(reviewRouting, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(reviewRouting, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it.each([
    ['none', null],
    ['an empty one', '  '],
  ])('fails for a job in review with %s for a reason, and holds once it says why', (_what, reason) => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.publish)).claim('w1').execute('publish', 'failed', { detail: FORBIDDEN }).review('step publish failed for good');
    const evidence = b.build();
    expect(judged(reviewRouting, evidence).status).toBe('held');
    evidence.jobs[0]!.reviewReason = reason;
    const verdict = judged(reviewRouting, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(/^job 1 .*: in review with no reason \(review_reason .*\): nobody can tell why it is there$/),
    ]);
  });

  describe('an unknown outcome of a non-idempotent step', () => {
    it('fails when the step is executed again without a reconcile', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').execute('email', 'unknown', { detail: LOST, apply: true }).retry(LOST);
      job.claim('w2').execute('email').complete();
      const verdict = judged(reviewRouting, b.build());
      expect(verdict.status).toBe('broken');
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          /^job 1 \(key [0-9a-f]{8}…\): step email \(send_email, not idempotent\) executed again while its outcome was in doubt: tx #3 email execute started \(attempt 2, epoch 2, w2, .*\) after tx #2 email execute unknown \(attempt 1, epoch 1, w1, .*\), with no reconcile not_executed between$/,
        ),
      ]);
    });

    it('fails when a started call its holder never finished is repeated blind', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'started', { apply: true }).expire('w2', 'worker');
      job.claim('w2').execute('publish').complete();
      expect(judged(reviewRouting, b.build()).text).toMatch(
        /job 1 .*: step publish \(publish_article, not idempotent\) executed again while its outcome was in doubt: tx #2 publish execute started \(attempt 2, epoch 2, w2/,
      );
    });

    it('holds when a reconcile said not_executed before the repeat', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'unknown', { detail: LOST }).reconcile('publish', 'not_executed').retry(LOST);
      job.claim('w2').execute('publish').complete();
      expect(judged(reviewRouting, b.build()).status).toBe('held');
    });

    it('fails when a step already applied is executed again', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email, STEPS.publish));
      job.claim('w1').execute('email').execute('publish', 'failed', { detail: 'TransientError: HTTP 503' }).retry();
      job.claim('w2').execute('email').execute('publish').complete();
      expect(judged(reviewRouting, b.build()).text).toMatch(
        /job 1 .*: step email \(send_email, not idempotent\) executed again after it was applied: tx #\d+ email execute started \(attempt 2, epoch 2, w2.* after tx #2 email execute success \(attempt 1, epoch 1, w1/,
      );
    });

    it('fails when reconciliation could not settle it and the job was claimed again without a person', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').execute('email', 'unknown', { detail: LOST }).reconcile('email', 'unknown').retry(LOST);
      job.claim('w2').reconcile('email', 'unknown').review('outcome of step email is unknown');
      expect(judged(reviewRouting, b.build()).text).toMatch(
        /job 1 .*: step email \(send_email, not idempotent\) stayed unknown after reconciliation \(tx #3 email reconcile unknown \(attempt 1, epoch 1, w1.*\)\), yet it was claimed again without a person's requeue: event #\d+ retry→running by worker w2.* \(the lease ended event #\d+ running→retry by worker w1/,
      );
    });

    it('holds when it went to review and a person requeued it', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').execute('email', 'unknown', { detail: LOST }).reconcile('email', 'unknown').review('outcome unknown').requeue('alice');
      job.claim('w2').reconcile('email', 'not_executed').execute('email').complete();
      expect(judged(reviewRouting, b.build()).status).toBe('held');
    });

    it('fails when a manual_only step with an unknown outcome ends anywhere but review', () => {
      const b = new EvidenceBuilder();
      b.job(planOf({ ...STEPS.email, retry_policy: 'manual_only' }))
        .claim('w1')
        .execute('email', 'unknown', { detail: LOST })
        .retry(LOST);
      expect(judged(reviewRouting, b.build()).text).toMatch(
        /job 1 .*: step email \(send_email, not idempotent\) has an unknown outcome and retry policy manual_only \(tx #2 .*\), yet it ended retry, not in review/,
      );
    });
  });

  describe('a permanent error', () => {
    it('fails when its holder sends it to retry and it is claimed again without a person', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'failed', { detail: FORBIDDEN }).retry(FORBIDDEN);
      job.claim('w2').execute('publish', 'failed', { detail: FORBIDDEN }).review('failed for good');
      const verdict = judged(reviewRouting, b.build());
      expect(verdict.status).toBe('broken');
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          /^job 1 .*: step publish failed for good \(tx #2 publish execute failed \(attempt 1, epoch 1, w1, .*\): "PermanentError: .*HTTP 403.*"\), yet its holder sent it to retry: event #3 running→retry by worker w1/,
        ),
        expect.stringMatching(
          /^job 1 .*: step publish failed for good \(tx #2 .*\), yet it was claimed again without a person's requeue: event #4 retry→running by worker w2/,
        ),
      ]);
    });

    it('holds when its holder lost the lease before routing it and the next holder sends it to review without calling again', () => {
      // Found by a soak on postgres: w1 met a 401, was paused past its lease before it wrote review; the
      // coordinator took the lease back to retry; w2 claimed, read the failure in the log and gave up.
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'failed', { detail: FORBIDDEN }).expire();
      job.claim('w2').review('step publish failed for good (permanent, found on resuming)');
      expect(judged(reviewRouting, b.build()).status).toBe('held');
    });

    it('fails when, its holder gone, the next holder calls the world again', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'failed', { detail: FORBIDDEN }).expire();
      job.claim('w2').execute('publish', 'failed', { detail: FORBIDDEN }).review('failed for good');
      expect(judged(reviewRouting, b.build()).text).toMatch(
        /step publish failed for good .*, yet it was claimed again without a person's requeue: event #\d+ retry→running by worker w2.* \(the lease ended event #\d+ running→retry by coordinator/,
      );
    });

    it('fails when, its holder gone, the next holder ends it anywhere but review or compensation', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'failed', { detail: FORBIDDEN }).expire();
      job.claim('w2').retry(FORBIDDEN);
      expect(judged(reviewRouting, b.build()).text).toMatch(/yet it was claimed again without a person's requeue/);
    });

    it.each(['PolicyViolationError: blocked', 'WorldError: HTTP 401: unauthorized', 'BusinessRuleError: no such customer'])(
      'treats %s as for good',
      (detail) => {
        const b = new EvidenceBuilder();
        const job = b.job(planOf(STEPS.publish));
        job.claim('w1').execute('publish', 'failed', { detail }).retry(detail);
        expect(judged(reviewRouting, b.build()).text).toMatch(/yet its holder sent it to retry/);
      },
    );

    it('goes by the kind its checkpoint recorded, not by the words of the error', () => {
      const forGood = new EvidenceBuilder();
      forGood
        .job(planOf(STEPS.publish))
        .claim('w1')
        .execute('publish', 'failed', { detail: 'the publisher said no', errorKind: 'permanent' })
        .retry('the publisher said no');
      expect(judged(reviewRouting, forGood.build()).text).toMatch(/yet its holder sent it to retry/);
      const transient = new EvidenceBuilder();
      transient.job(planOf(STEPS.publish)).claim('w1').execute('publish', 'failed', { detail: FORBIDDEN, errorKind: 'transient' }).retry(FORBIDDEN);
      expect(judged(reviewRouting, transient.build()).status).toBe('held');
    });

    it('does not treat a transient failure as for good', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.publish));
      job.claim('w1').execute('publish', 'failed', { detail: 'TransientError: HTTP 503' }).retry();
      job.claim('w2').execute('publish').complete();
      expect(judged(reviewRouting, b.build()).status).toBe('held');
    });
  });

  describe('exhausted retries', () => {
    it('fail when the last attempt goes to retry, and when the job ends there', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email), { maxAttempts: 1 });
      job.claim('w1').execute('email', 'failed', { detail: 'TransientError: HTTP 503' }).retry();
      const verdict = judged(reviewRouting, b.build());
      expect(verdict.evidence).toEqual([
        expect.stringMatching(/^job 1 .*: sent to retry on its last attempt \(1 of 1\): event #3 running→retry by worker w1/),
        expect.stringMatching(/^job 1 .*: used 1 of 1 attempts and ended retry, not in review$/),
      ]);
    });

    it('fail when an expired lease on the last attempt is swept to retry', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email), { maxAttempts: 1 });
      job.claim('w1');
      job.transition('retry', 'coordinator', 'coord-1', 'lease of w1 expired');
      job.lease = null;
      Object.assign(job.row, { holder: null, leaseUntil: null });
      expect(judged(reviewRouting, b.build()).text).toMatch(
        /sent to retry on its last attempt \(1 of 1\): event #3 running→retry by coordinator coord-1/,
      );
    });
  });

  describe('a plan that breaks policy', () => {
    const declaredIdempotent = { ...STEPS.email, idempotent: true };

    it('holds when it was blocked into review before any step ran', () => {
      const b = new EvidenceBuilder();
      b.job(planOf(declaredIdempotent)).claim('w1').review('policy violation, blocked before any step ran');
      expect(judged(reviewRouting, b.build()).status).toBe('held');
    });

    it('fails when it ran, reached the world and ended done', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(declaredIdempotent));
      job.claim('w1').run().complete();
      const verdict = judged(reviewRouting, b.build());
      expect(verdict.status).toBe('broken');
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          /^job 1 .*: its plan breaks policy \(step email: declared idempotent, but send_email is not\), yet it ended done, not in review$/,
        ),
        expect.stringMatching(
          new RegExp(
            `^job 1 .*: its plan breaks policy .*, yet the world applied ledger #1 send_email by w1 attempt 1 .* under key ${job.keyOf('email')}$`,
          ),
        ),
        expect.stringMatching(/^job 1 .*: its plan breaks policy .*, yet a step ran: tx #1 email execute started/),
        expect.stringMatching(/^job 1 .*: its plan breaks policy .*, yet a step ran: tx #2 email execute success/),
      ]);
    });
  });
});
