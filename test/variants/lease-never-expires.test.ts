import { afterEach, describe, expect, it } from 'vitest';
import { utc } from '../../src/kernel/clock.js';
import { NEVER_EXPIRING_LEASE_MS } from '../../src/variants/lease-never-expires/lease-never-expires-queue.js';
import { LEASE_MS, PAST_LEASE_MS, type StoreFixture, storeFixture, T0 } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

describe('lease-never-expires', () => {
  it("takes a day-long lease on every claim and heartbeat, so a crashed worker's job is never taken back", () => {
    fx = storeFixture('never-expires');
    const queue = fx.open('lease-never-expires');
    const jobId = fx.add(queue);
    const crashed = fx.claimBy(queue, 'w1');
    expect(crashed.job.lease_until).toBe(utc(T0 + NEVER_EXPIRING_LEASE_MS));
    fx.clock.advance(LEASE_MS);
    expect(queue.heartbeat(crashed.lease).ok).toBe(true);
    expect(queue.job(jobId)?.lease_until).toBe(utc(T0 + LEASE_MS + NEVER_EXPIRING_LEASE_MS));
    // w1 dies here. Past the lease the caller asked for, ten times over: nobody gets the job, not even a restarted w1.
    fx.clock.advance(10 * PAST_LEASE_MS);
    const other = fx.open('lease-never-expires');
    expect(other.claim('w2')).toBeNull();
    expect(other.claim('w1')).toBeNull();
    expect(other.sweepExpiredLeases()).toEqual([]);
    expect(other.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w1', attempts: 1 });
  });

  it('reference: the lease ends when asked, and the next claim takes the job back', () => {
    fx = storeFixture('expires');
    const queue = fx.open('reference');
    const jobId = fx.add(queue);
    expect(fx.claimBy(queue, 'w1').job.lease_until).toBe(utc(T0 + LEASE_MS));
    fx.clock.advance(PAST_LEASE_MS);
    const taken = fx.claimBy(fx.open('reference'), 'w2');
    expect(taken.job).toMatchObject({ id: jobId, leased_by: 'w2', attempts: 2 });
  });
});
