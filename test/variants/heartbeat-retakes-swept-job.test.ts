import { afterEach, describe, expect, it } from 'vitest';
import { DIGEST, PAST_LEASE_MS, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

/** w1 claims the job and stalls past its lease; the coordinator sweeps it back to retry; nobody claims it. */
function swept(name: string) {
  const queue = fx.open(name);
  const jobId = fx.add(queue);
  const w1 = fx.claimBy(queue, 'w1');
  fx.clock.advance(PAST_LEASE_MS);
  expect(fx.open(name).sweepExpiredLeases('coordinator', 'coord-1')).toEqual([{ jobId, to: 'retry' }]);
  return { queue, jobId, w1 };
}

describe('heartbeat-retakes-swept-job', () => {
  it("takes a swept job back on the stalled holder's renewal, under the fence the sweep ended, and lets it finish", () => {
    fx = storeFixture('retakes');
    const { queue, jobId, w1 } = swept('heartbeat-retakes-swept-job');
    expect(queue.heartbeat(w1.lease)).toEqual({ ok: true, status: 'running' });
    expect(queue.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w1', lease_fence: 1, attempts: 1 });
    expect(queue.complete(w1.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
    // A second claim under epoch 1, of attempt 1: what single-holder finds ("two claims share epoch 1").
    expect(fx.moves(queue, jobId).slice(-4)).toEqual([
      'pending>running by w1 (1)',
      'running>retry by coord-1 (1)',
      'retry>running by w1 (1)',
      'running>done by w1 (1)',
    ]);
  });

  it('refuses (and records) a renewal once the job was claimed again, and leaves a job swept to review there', () => {
    fx = storeFixture('retakes-claimed');
    const { queue, jobId, w1 } = swept('heartbeat-retakes-swept-job');
    fx.claimBy(queue, 'w2');
    expect(queue.heartbeat(w1.lease)).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(fx.moves(queue, jobId).at(-1)).toBe('refused running>running by w1 (1)');

    const last = fx.open('heartbeat-retakes-swept-job');
    const reviewed = fx.add(last, 'job-2', 1);
    const holder = fx.claimBy(last, 'w3');
    fx.clock.advance(PAST_LEASE_MS);
    last.sweepExpiredLeases('coordinator', 'coord-1');
    expect(last.job(reviewed)).toMatchObject({ status: 'review' });
    expect(last.heartbeat(holder.lease)).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(last.job(reviewed)).toMatchObject({ status: 'review', leased_by: null });
  });

  it("reference: refuses the stalled holder's renewal on a swept job, records the refusal, and the job stays to retry", () => {
    fx = storeFixture('renewal-refused');
    const { queue, jobId, w1 } = swept('reference');
    expect(queue.heartbeat(w1.lease)).toEqual({ ok: false, code: 'QD_LEASE_LOST', current: { status: 'retry', leasedBy: null, fence: 1 } });
    expect(queue.job(jobId)).toMatchObject({ status: 'retry', leased_by: null });
    expect(fx.moves(queue, jobId).slice(-2)).toEqual(['running>retry by coord-1 (1)', 'refused retry>running by w1 (1)']);
    expect(queue.history(jobId).at(-1)?.reason).toBe('heartbeat refused: lease of w1 under fence 1 was lost (job is retry, not leased)');
  });
});
