import { afterEach, describe, expect, it } from 'vitest';
import { LEASE_MS, SKEW_MS, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

describe('sweep-before-lease-end', () => {
  it("takes a job back the skew margin before its holder's lease ends: a claim's sweep and the coordinator's alike", () => {
    fx = storeFixture('sweep-early');
    const queue = fx.open('sweep-before-lease-end');
    const jobId = fx.add(queue);
    const held = fx.claimBy(queue, 'w1');
    // w1's lease is live for SKEW_MS more: the mistake counts it expired already.
    fx.clock.advance(LEASE_MS - SKEW_MS + 1);
    const other = fx.open('sweep-before-lease-end');
    expect(other.expiredLeases().map((job) => job.id)).toEqual([jobId]);
    const taken = fx.claimBy(other, 'w2');
    expect(taken.job).toMatchObject({ id: jobId, leased_by: 'w2', attempts: 2 });
    expect(fx.moves(queue, jobId)).toContain('running>retry by w2 (1)');
    // The holder, still inside its lease, learns it lost the job only at its next write.
    expect(queue.heartbeat(held.lease).ok).toBe(false);
  });

  it('reference: a live lease is never swept, and one past its end by the margin is', () => {
    fx = storeFixture('sweep-on-time');
    const queue = fx.open('reference');
    const jobId = fx.add(queue);
    fx.claimBy(queue, 'w1');
    fx.clock.advance(LEASE_MS - SKEW_MS + 1);
    const other = fx.open('reference');
    expect(other.expiredLeases()).toEqual([]);
    expect(other.claim('w2')).toBeNull();
    fx.clock.advance(2 * SKEW_MS);
    expect(other.expiredLeases().map((job) => job.id)).toEqual([jobId]);
    expect(fx.claimBy(other, 'w2').job).toMatchObject({ id: jobId, attempts: 2 });
  });
});
