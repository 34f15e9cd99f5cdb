import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/judge/evidence.js';
import { checkInvariants } from '../../../src/judge/invariants/index.js';
import { allowedDelay, retryBackoff } from '../../../src/judge/invariants/retry-backoff.js';
import { utc } from '../../../src/kernel/clock.js';
import type { Transition } from '../../../src/port/snapshot.js';
import { cleanEvidence, EvidenceBuilder, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

/** One job that fails its first attempt (the queue recording `delayMs`, if given) and is claimed again `gapMs` later. */
function failedOnce(options: { delayMs?: number; gapMs: number; policy?: Evidence['retryPolicy']; skewMarginMs?: number }): Evidence {
  const b = new EvidenceBuilder();
  const job = b.job(planOf(STEPS.write)).claim('w1').retry('TransientError: HTTP 503', options.delayMs);
  b.advance(options.gapMs - 100);
  job.claim('w2').run().complete();
  const evidence = b.build();
  if (options.policy) evidence.retryPolicy = options.policy;
  if (options.skewMarginMs !== undefined) evidence.skewMarginMs = options.skewMarginMs;
  return evidence;
}

const failures = (evidence: Evidence): Transition[] => evidence.events.filter((e) => e.to === 'retry' && e.actor === 'worker');

describe('retry-backoff', () => {
  it('computes the policy: base doubling per attempt, capped, plus jitter', () => {
    const policy = { baseMs: 20, capMs: 200, jitterMs: 10 };
    expect(allowedDelay(policy, 1)).toEqual({ min: 20, max: 30 });
    expect(allowedDelay(policy, 2)).toEqual({ min: 40, max: 50 });
    expect(allowedDelay(policy, 5)).toEqual({ min: 200, max: 210 });
  });

  it('holds on drills whose retries wait as the policy says, and on drills with none', () => {
    expect(judged(retryBackoff, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(retryBackoff, cleanEvidence()).note).toMatch(/no job was released to retry after a failed attempt/);
    expect(judged(retryBackoff, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(retryBackoff, failedOnce({ delayMs: 25, gapMs: 100 }))).toMatchObject({ status: 'held', evidence: [] });
  });

  it('fails a retry scheduled at once, naming the release and the least the policy waits', () => {
    const verdict = judged(retryBackoff, failedOnce({ delayMs: 0, gapMs: 100 }));
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(
        /^job 1: event #\d+ running→retry by worker w1, .* set a retry delay of 0 ms; after attempt 1 the policy waits at least 20 ms$/,
      ),
    ]);
  });

  it('fails a delay past the cap plus the jitter', () => {
    const verdict = judged(retryBackoff, failedOnce({ delayMs: 500, gapMs: 600 }));
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(/set a retry delay of 500 ms; after attempt 1 the policy waits at most 30 ms/);
  });

  it('fails a claim that came before the retry was due, beyond the skew margin', () => {
    const policy = { baseMs: 1_000, capMs: 5_000, jitterMs: 0 };
    const early = judged(retryBackoff, failedOnce({ delayMs: 1_000, gapMs: 100, policy, skewMarginMs: 50 }));
    expect(early.status).toBe('broken');
    expect(early.text).toMatch(
      /job 1: claimed again 100 ms after its failure \(event #\d+ retry→running by worker w2.*\); its retry was due after 1000 ms/,
    );
    // Within the skew margin: another process's clock may run a little ahead.
    expect(judged(retryBackoff, failedOnce({ delayMs: 1_000, gapMs: 960, policy, skewMarginMs: 50 })).status).toBe('held');
  });

  // pg-boss counts its delay from its transaction's start and the row changes later: on a loaded server the claim at
  // start_after came 871 ms after the change, under a delay of 1000 ms, and a sound queue was called early.
  it('judges a claim against the due time the queue recorded, where it records one, not the failure plus the delay', () => {
    const policy = { baseMs: 1_000, capMs: 5_000, jitterMs: 0 };
    const dueAt = (evidence: Evidence, ms: number): Evidence => {
      const failure = failures(evidence)[0]!;
      failure.retryDueAt = utc(Date.parse(failure.at) + ms);
      return evidence;
    };
    // Due 870 ms after the change was recorded (the delay counted from 130 ms before it), claimed at 900 ms: on time.
    expect(judged(retryBackoff, dueAt(failedOnce({ delayMs: 1_000, gapMs: 900, policy, skewMarginMs: 50 }), 870)).status).toBe('held');
    // The same claim against a due time 1000 ms after the record: early, and the line names the due time.
    const early = judged(retryBackoff, dueAt(failedOnce({ delayMs: 1_000, gapMs: 900, policy, skewMarginMs: 50 }), 1_000));
    expect(early.status).toBe('broken');
    expect(early.text).toMatch(/claimed again 900 ms after its failure .*; its retry was due at \S+ \(1000 ms after the failure's record\)/);
  });

  it('judges only releases that record the delay chosen: one without (a swept lease, a queue that records none) is not judged', () => {
    const policy = { baseMs: 1_000, capMs: 5_000, jitterMs: 0 };
    expect(judged(retryBackoff, failedOnce({ gapMs: 100, policy, skewMarginMs: 50 }))).toMatchObject({ status: 'held', evidence: [] });
  });

  it('does not judge a lease taken back after a crash: the lease was its wait', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.write)).claim('w1').expire().claim('w2').run().complete();
    const evidence = b.build();
    evidence.retryPolicy = { baseMs: 60_000, capMs: 60_000, jitterMs: 0 };
    expect(judged(retryBackoff, evidence)).toMatchObject({ status: 'held', evidence: [] });
  });

  describe('lockstep', () => {
    /** `count` jobs that fail attempt 1 within a few ms of each other, each given its delay. */
    function wave(delays: number[], jitterMs: number): Evidence {
      const b = new EvidenceBuilder();
      const jobs = delays.map(() => b.job(planOf(STEPS.write)).claim('w1'));
      jobs.forEach((job, i) => {
        job.retry('TransientError: HTTP 503', delays[i]);
      });
      b.advance(2_000);
      for (const job of jobs) job.claim('w2').run().complete();
      const evidence = b.build();
      evidence.retryPolicy = { baseMs: 300, capMs: 1_000, jitterMs };
      // The failures land within a few ms of each other, as a wave of failures from one outage does.
      failures(evidence).forEach((event, i) => {
        event.at = utc(Date.parse(failures(evidence)[0]!.at) + i * 4);
      });
      return evidence;
    }

    it('fails three jobs that failed together and were all given the same delay', () => {
      const verdict = judged(retryBackoff, wave([300, 300, 300], 200));
      expect(verdict.status).toBe('broken');
      expect(verdict.evidence).toEqual([
        "3 jobs (1, 2, 3) failed attempt 1 within 8 ms and were all set to retry after exactly 300 ms: they retry in lockstep (the policy's jitter is 0–200 ms)",
      ]);
    });

    it('holds when their delays differ, or when only two failed together', () => {
      expect(judged(retryBackoff, wave([300, 417, 352], 200))).toMatchObject({ status: 'held', evidence: [] });
      expect(judged(retryBackoff, wave([300, 300], 200))).toMatchObject({ status: 'held', evidence: [] });
    });

    it('is not judged when the jitter is too small to tell lockstep from chance, and says so', () => {
      const verdict = judged(retryBackoff, wave([300, 300, 300], 10));
      expect(verdict).toMatchObject({ status: 'held', evidence: [] });
      expect(verdict.note).toMatch(/lockstep not judged: the policy's jitter \(10 ms\) is below 100 ms/);
    });
  });

  it('is not judged for a queue that declares no retry policy', () => {
    const evidence = failedOnce({ delayMs: 0, gapMs: 100 });
    evidence.available = { ...evidence.available, 'retry-policy': 'this queue retries at once by design' };
    const [verdict] = checkInvariants(evidence, ['retry-backoff']);
    expect(verdict).toMatchObject({ status: 'not_judged' });
    expect(verdict!.note).toMatch(/needs retry-policy .*: this queue retries at once by design/);
  });
});
