import { afterEach, describe, expect, it } from 'vitest';
import { DIGEST, PAST_LEASE_MS, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

/** w1 claims the job and is paused past its lease; w2 claims it again and finishes it. */
function zombieAfterDone(name: string) {
  const queue = fx.open(name);
  const jobId = fx.add(queue);
  const w1 = fx.claimBy(queue, 'w1');
  fx.clock.advance(PAST_LEASE_MS);
  const w2 = fx.claimBy(fx.open(name), 'w2');
  expect(queue.complete(w2.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
  return { queue, jobId, w1 };
}

describe('complete-on-done-silently', () => {
  it("answers ok to a zombie's complete on a job already done, and records nothing", () => {
    fx = storeFixture('done-silently');
    const { queue, jobId, w1 } = zombieAfterDone('complete-on-done-silently');
    const before = fx.moves(queue, jobId);
    expect(queue.complete(w1.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
    expect(fx.moves(queue, jobId)).toEqual(before);
    expect(before.at(-1)).toBe('running>done by w2 (2)');
  });

  it("refuses (and records) a zombie's complete while the job is still held by another: its mistake is for done jobs only", () => {
    fx = storeFixture('done-silently-held');
    const queue = fx.open('complete-on-done-silently');
    const jobId = fx.add(queue);
    const w1 = fx.claimBy(queue, 'w1');
    fx.clock.advance(PAST_LEASE_MS);
    fx.claimBy(queue, 'w2');
    expect(queue.complete(w1.lease, DIGEST)).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(fx.moves(queue, jobId).at(-1)).toBe('refused running>done by w1 (1)');
  });

  it("reference: refuses a zombie's complete on a done job and records the refusal", () => {
    fx = storeFixture('done-refused');
    const { queue, jobId, w1 } = zombieAfterDone('reference');
    expect(queue.complete(w1.lease, DIGEST)).toEqual({
      ok: false,
      code: 'QD_LEASE_LOST',
      current: { status: 'done', leasedBy: null, fence: 2 },
    });
    expect(fx.moves(queue, jobId).slice(-2)).toEqual(['running>done by w2 (2)', 'refused done>done by w1 (1)']);
    expect(queue.history(jobId).at(-1)?.reason).toMatch(/^complete refused: lease of w1 under fence 1 was lost \(job is done, not leased\)$/);
  });
});
