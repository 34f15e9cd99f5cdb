import { afterEach, describe, expect, it } from 'vitest';
import { DIGEST, PAST_LEASE_MS, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

/** w1 claims the job and is paused past its lease; w2 claims it again and holds it. */
function zombie(name: string) {
  const queue = fx.open(name);
  const jobId = fx.add(queue);
  const w1 = fx.claimBy(queue, 'w1');
  fx.clock.advance(PAST_LEASE_MS);
  const w2 = fx.claimBy(fx.open(name), 'w2');
  return { queue, jobId, w1, w2 };
}

describe('unguarded-writes', () => {
  it("applies a zombie's late complete over the job's new holder", () => {
    fx = storeFixture('unguarded-complete');
    const { queue, jobId, w1, w2 } = zombie('unguarded-writes');
    expect(w2.lease.fence).toBe(2);
    expect(queue.complete(w1.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
    expect(queue.job(jobId)).toMatchObject({ status: 'done', leased_by: null });
    // Written under fence 1 while w2 held fence 2: the applied stale write the drill's single-holder looks for.
    expect(fx.moves(queue, jobId).slice(-2)).toEqual(['retry>running by w2 (2)', 'running>done by w1 (1)']);
  });

  it("renews a lease on a job that is no longer the worker's, and on a job already done", () => {
    fx = storeFixture('unguarded-heartbeat');
    const { queue, jobId, w1, w2 } = zombie('unguarded-writes');
    expect(queue.heartbeat(w1.lease)).toMatchObject({ ok: true, status: 'running' }); // the zombie never learns it lost the job
    expect(queue.complete(w2.lease, DIGEST).ok).toBe(true);
    expect(queue.heartbeat(w1.lease)).toMatchObject({ ok: true, status: 'done' });
    expect(queue.job(jobId)).toMatchObject({ status: 'done', lease_until: expect.any(String) }); // a done job holding a lease
  });

  it('reference: refuses both writes and records the refusals', () => {
    fx = storeFixture('guarded');
    const { queue, jobId, w1 } = zombie('reference');
    expect(queue.heartbeat(w1.lease)).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(queue.complete(w1.lease, DIGEST)).toMatchObject({
      ok: false,
      code: 'QD_LEASE_LOST',
      current: { status: 'running', leasedBy: 'w2', fence: 2 },
    });
    expect(queue.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w2' });
    expect(fx.moves(queue, jobId).slice(-2)).toEqual(['refused running>running by w1 (1)', 'refused running>done by w1 (1)']);
  });
});
