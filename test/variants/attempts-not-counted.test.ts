import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_MS, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

/** Claims the job and fails it, `times` times in a row; returns each claim's attempt and where the job went. */
function failRepeatedly(name: string, maxAttempts: number, times: number) {
  const queue = fx.open(name);
  const jobId = fx.add(queue, 'job-1', maxAttempts);
  const seen: Array<{ attempt: number; to: string }> = [];
  for (let i = 0; i < times; i++) {
    const claimed = queue.claim('w1');
    if (!claimed) break;
    const write = queue.retry(claimed.lease, 'HTTP 503', claimed.job.attempts);
    seen.push({ attempt: claimed.job.attempts, to: write.ok ? write.status : 'refused' });
    fx.clock.advance(RETRY_MS);
  }
  return { queue, jobId, seen };
}

describe('attempts-not-counted', () => {
  it('never counts an attempt, so max_attempts never sends a run of failures to review', () => {
    fx = storeFixture('uncounted');
    const { queue, jobId, seen } = failRepeatedly('attempts-not-counted', 2, 5);
    expect(seen).toEqual(Array.from({ length: 5 }, () => ({ attempt: 0, to: 'retry' })));
    expect(queue.job(jobId)).toMatchObject({ status: 'retry', attempts: 0, max_attempts: 2, lease_fence: 5 });
    // Five claims in the history, none of them counted.
    expect(
      queue
        .history(jobId)
        .filter((e) => e.to_status === 'running')
        .map((e) => e.attempt),
    ).toEqual([0, 0, 0, 0, 0]);
  });

  it('reference: counts each claim and sends the job to review when the budget is spent', () => {
    fx = storeFixture('counted');
    const { queue, jobId, seen } = failRepeatedly('reference', 2, 5);
    expect(seen).toEqual([
      { attempt: 1, to: 'retry' },
      { attempt: 2, to: 'review' },
    ]);
    expect(queue.job(jobId)).toMatchObject({ status: 'review', attempts: 2, review_reason: expect.stringMatching(/^retries exhausted \(2 of 2\)/) });
  });
});
