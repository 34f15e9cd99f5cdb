import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Claimed } from '../../src/reference/sqlite/sqlite-queue.js';
import type { WorldPort } from '../../src/saga/world-port.js';
import { approvedClaim, EMAIL_STEP, expectNothingOpen, planOf, type SagaFixture, startSaga, THREE_STEP, txLines, WRITE_STEP } from './fixture.js';

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

/** The real world, except that during the first call to `tool` the lease is lost: it expires and `thief` claims the job. */
function losesLeaseDuring(f: SagaFixture, tool: string, thief: string): { world: WorldPort; stolen: () => Claimed } {
  let stolen: Claimed | undefined;
  const world: WorldPort = {
    async call(name, key, args, meta) {
      if (name === tool && !stolen) {
        f.expireLeases();
        stolen = f.claim(thief);
      }
      return f.client.call(name, key, args, meta);
    },
    reconcile: (name, key) => f.client.reconcile(name, key),
  };
  return {
    world,
    stolen: () => {
      if (!stolen) throw new Error('the lease was never taken');
      return stolen;
    },
  };
}

describe('fencing: a worker that lost its lease', () => {
  it('before it runs: lease_lost, no world call, no checkpoint, and its queue writes are refused', async () => {
    fx = await startSaga();
    const stale = fx.start(planOf(WRITE_STEP, EMAIL_STEP));
    const jobId = stale.job.id;
    fx.expireLeases();
    const current = fx.claim('w2');
    expect(current.lease.fence).toBe(stale.lease.fence + 1);

    expect(await fx.run(stale)).toEqual({ kind: 'lease_lost', step: 'write' });
    expect(fx.calls()).toEqual([]);
    expect(fx.effects()).toEqual([]);
    expect(fx.txLog(jobId)).toEqual([]);
    // Whatever it would write is refused and recorded, never silently dropped.
    expect(fx.queue.complete(stale.lease, 'f'.repeat(64))).toMatchObject({ ok: false, code: 'QD_LEASE_LOST' });
    expect(fx.queue.history(jobId).at(-1)).toMatchObject({ kind: 'refused', worker: 'w1' });
    expect(fx.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w2' });

    // The current holder is unaffected.
    expect((await fx.runAndSettle(current)).kind).toBe('done');
    expect(fx.effects().map((e) => [e.tool, e.worker])).toEqual([
      ['write_file', 'w2'],
      ['send_email', 'w2'],
    ]);
  });

  it('even when the same worker id claimed it again (a restarted worker): the old fence is refused', async () => {
    fx = await startSaga();
    const stale = fx.start(planOf(WRITE_STEP, EMAIL_STEP));
    fx.expireLeases();
    const again = fx.claim('w1');
    expect(again.lease).toEqual({ ...stale.lease, fence: stale.lease.fence + 1 });

    expect(await fx.run(stale)).toEqual({ kind: 'lease_lost', step: 'write' });
    expect(fx.calls()).toEqual([]);
    expect(fx.txLog(stale.job.id)).toEqual([]);
    expect((await fx.runAndSettle(again)).kind).toBe('done');
    expect(fx.effects()).toHaveLength(2);
  });

  it('during an idempotent call: the effect lands, the success checkpoint is refused, nothing more is called; the new holder repeats it by key', async () => {
    fx = await startSaga();
    const stale = fx.start(planOf(WRITE_STEP, EMAIL_STEP));
    const jobId = stale.job.id;
    const lose = losesLeaseDuring(fx, 'write_file', 'w2');

    expect(await fx.run(stale, lose.world)).toEqual({ kind: 'lease_lost', step: 'write' });
    expect(fx.calls().map((c) => c.tool)).toEqual(['write_file']); // the email was never sent by the stale worker
    expect(txLines(fx.txLog(jobId))).toEqual(['write execute started']);

    expect((await fx.runAndSettle(lose.stolen())).kind).toBe('done');
    expect(txLines(fx.txLog(jobId).filter((row) => row.worker === 'w2'))).toEqual([
      'write execute started',
      'write execute success',
      'email execute started',
      'email execute success',
    ]);
    expect(fx.calls().map((c) => [c.tool, c.outcome])).toEqual([
      ['write_file', 'applied'],
      ['write_file', 'replayed'],
      ['send_email', 'applied'],
    ]);
    expect(Object.values(fx.effectCounts())).toEqual([1, 1]);
  });

  it('during the charge: nothing more is called, and the new holder reconciles instead of charging again', async () => {
    fx = await startSaga();
    const stale = await approvedClaim(fx, THREE_STEP);
    const jobId = stale.job.id;
    const lose = losesLeaseDuring(fx, 'charge_customer', 'w3');

    expect(await fx.run(stale, lose.world)).toEqual({ kind: 'lease_lost', step: 'charge' });
    expect(fx.calls().map((c) => c.tool)).toEqual(['write_file', 'charge_customer']);

    const current = lose.stolen();
    expect((await fx.runAndSettle(current)).kind).toBe('done');
    expect(txLines(fx.txLog(jobId).filter((row) => row.worker === 'w3'))).toEqual([
      'charge reconcile success',
      'email execute started',
      'email execute success',
    ]);
    expect(fx.effectsFor(fx.keyOf(jobId, 'charge'))).toHaveLength(1);
    expect(fx.calls().filter((c) => c.tool === 'charge_customer')).toHaveLength(1);
  });
});
