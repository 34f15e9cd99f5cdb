import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reconcileExpiredLeases } from '../../src/coordinator/reconcile-expired.js';
import type { Claimed } from '../../src/reference/sqlite/sqlite-queue.js';
import type { WorldPort } from '../../src/saga/world-port.js';
import {
  approvedClaim,
  EMAIL_STEP,
  expectNothingOpen,
  planOf,
  RETRY_MS,
  type SagaFixture,
  startSaga,
  THREE_STEP,
  txLines,
  WRITE_STEP,
} from '../saga/fixture.js';

/*
 * The coordinator's lease sweep, in-process against a real store and a real
 * world: a worker "dies" by leaving a checkpoint and never coming back, the
 * queue's clock moves past its lease, and the sweep settles what it left.
 */

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

/** The real world, counting reconciliation queries. */
function counting(f: SagaFixture): WorldPort & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    call: (tool, key, args, meta) => f.client.call(tool, key, args, meta),
    reconcile(tool, key, fence) {
      asked.push(`${tool} ${key}`);
      return f.client.reconcile(tool, key, fence);
    },
  };
}

/** A worker that approved-ran the three-step plan up to the charge, checkpointed it, and died. */
async function diedDuringCharge(f: SagaFixture, applied: boolean): Promise<{ dead: Claimed; ref: string | null }> {
  const dead = await approvedClaim(f, THREE_STEP);
  f.checkpoint(dead, 'charge', 'started');
  const ref = applied ? await f.applyDirectly(dead, 'charge', THREE_STEP) : null;
  f.expireLeases();
  return { dead, ref };
}

describe('reconcileExpiredLeases', () => {
  it('charge in doubt and the world has it: reconcile success in the log, job to retry, then finished without a second charge', async () => {
    fx = await startSaga();
    const { dead, ref } = await diedDuringCharge(fx, true);
    const jobId = dead.job.id;
    const world = counting(fx);

    const released = await reconcileExpiredLeases(fx.conn, world, 'coord-1');
    expect(released).toEqual([
      { jobId: String(jobId), to: 'retry', reason: `lease of w2 expired at ${dead.job.lease_until}; step charge reconciled: completed (${ref})` },
    ]);
    expect(world.asked).toEqual([`charge_customer ${fx.keyOf(jobId, 'charge')}`]);
    expect(fx.txLog(jobId).at(-1)).toMatchObject({
      step_id: 'charge',
      action: 'reconcile',
      status: 'success',
      external_reference: ref,
      worker: 'coord-1',
      attempt: 2,
    });
    expect(fx.job(jobId)).toMatchObject({ status: 'retry', leased_by: null, lease_until: null });
    expect(fx.queue.history(jobId).at(-1)).toMatchObject({ from_status: 'running', to_status: 'retry', actor: 'coordinator', worker: 'coord-1' });

    // The next worker starts after the charge.
    const next = fx.claim('w3');
    expect((await fx.runAndSettle(next)).kind).toBe('done');
    expect(txLines(fx.txLog(jobId).filter((row) => row.attempt === 3))).toEqual(['email execute started', 'email execute success']);
    expect(fx.effectsFor(fx.keyOf(jobId, 'charge'))).toHaveLength(1);
    expect(Object.values(fx.effectCounts())).toEqual([1, 1, 1]);
  });

  it('charge in doubt and the world never got it: not_executed in the log, job to retry, then charged once', async () => {
    fx = await startSaga();
    const { dead } = await diedDuringCharge(fx, false);
    const jobId = dead.job.id;

    const released = await reconcileExpiredLeases(fx.conn, fx.client, 'coord-1');
    expect(released).toEqual([{ jobId: String(jobId), to: 'retry', reason: expect.stringMatching(/; step charge reconciled: not executed$/) }]);
    expect(fx.txLog(jobId).at(-1)).toMatchObject({ step_id: 'charge', action: 'reconcile', status: 'not_executed', worker: 'coord-1' });
    expect(fx.job(jobId).status).toBe('retry');
    expect(fx.effectsFor(fx.keyOf(jobId, 'charge'))).toEqual([]);

    expect((await fx.runAndSettle(fx.claim('w3'))).kind).toBe('done');
    expect(txLines(fx.txLog(jobId).filter((row) => row.step_id === 'charge' && row.attempt === 3))).toEqual([
      'charge execute started',
      'charge execute success',
    ]);
    expect(fx.effectsFor(fx.keyOf(jobId, 'charge'))).toHaveLength(1);
  });

  for (const sent of [true, false]) {
    it(`send_email in doubt (${sent ? 'sent' : 'not sent'}): review with the reason, never a retry, no second email`, async () => {
      fx = await startSaga();
      const plan = planOf(WRITE_STEP, EMAIL_STEP);
      const dead = fx.start(plan);
      const jobId = dead.job.id;
      fx.checkpoint(dead, 'write', 'started');
      await fx.applyDirectly(dead, 'write', plan);
      fx.checkpoint(dead, 'write', 'success');
      fx.checkpoint(dead, 'email', 'started');
      if (sent) await fx.applyDirectly(dead, 'email', plan);
      fx.expireLeases();

      const released = await reconcileExpiredLeases(fx.conn, fx.client, 'coord-1');
      expect(released).toEqual([
        {
          jobId: String(jobId),
          to: 'review',
          reason: expect.stringMatching(
            /^lease of w1 expired during step email \(send_email\); its outcome is unknown and reconciliation cannot settle it \(send_email cannot be looked up by key/,
          ),
        },
      ]);
      expect(released[0]?.reason).toMatch(/a person must check$/);
      expect(fx.job(jobId)).toMatchObject({ status: 'review', review_reason: released[0]?.reason, leased_by: null });
      expect(fx.txLog(jobId).at(-1)).toMatchObject({ step_id: 'email', action: 'reconcile', status: 'unknown', worker: 'coord-1' });
      expect(fx.queue.history(jobId).some((e) => e.to_status === 'retry')).toBe(false);
      // Sticky: no worker picks it up, so no second email.
      fx.clock.advance(10 * RETRY_MS);
      expect(fx.queue.claim('w-eager')).toBeNull();
      expect(fx.effectsFor(fx.keyOf(jobId, 'email'))).toHaveLength(sent ? 1 : 0);
    });
  }

  it('leaves live leases alone and does not ask the world', async () => {
    fx = await startSaga();
    const dead = await approvedClaim(fx, THREE_STEP);
    fx.checkpoint(dead, 'charge', 'started');
    fx.clock.advance(dead.job.lease_until ? Date.parse(dead.job.lease_until) - fx.clock.now() : 0); // at the lease's end: within the skew margin
    const world = counting(fx);
    expect(await reconcileExpiredLeases(fx.conn, world, 'coord-1')).toEqual([]);
    expect(world.asked).toEqual([]);
    expect(fx.job(dead.job.id)).toMatchObject({ status: 'running', leased_by: 'w2' });
  });

  it('a dead worker with nothing non-idempotent in doubt: plain retry, the world is not asked', async () => {
    fx = await startSaga();
    const dead = fx.start(planOf(WRITE_STEP, EMAIL_STEP));
    fx.checkpoint(dead, 'write', 'started'); // idempotent: repeating it is harmless
    fx.expireLeases();
    const world = counting(fx);
    expect(await reconcileExpiredLeases(fx.conn, world, 'coord-1')).toEqual([
      { jobId: String(dead.job.id), to: 'retry', reason: `lease of w1 expired at ${dead.job.lease_until}` },
    ]);
    expect(world.asked).toEqual([]);
    expect(txLines(fx.txLog(dead.job.id))).toEqual(['write execute started']);
  });

  it('when the world cannot be asked, leaves the job for a later sweep, then settles it', async () => {
    fx = await startSaga();
    const { dead, ref } = await diedDuringCharge(fx, true);
    const down: WorldPort = {
      call: () => Promise.reject(new Error('unused')),
      reconcile: () => Promise.reject(new Error('world unreachable')),
    };
    expect(await reconcileExpiredLeases(fx.conn, down, 'coord-1')).toEqual([]);
    expect(fx.job(dead.job.id)).toMatchObject({ status: 'running', leased_by: 'w2' });
    expect(fx.txLog(dead.job.id).some((row) => row.action === 'reconcile')).toBe(false);

    const released = await reconcileExpiredLeases(fx.conn, fx.client, 'coord-1');
    expect(released).toMatchObject([{ jobId: String(dead.job.id), to: 'retry' }]);
    expect(fx.txLog(dead.job.id).at(-1)).toMatchObject({ action: 'reconcile', status: 'success', external_reference: ref });
  });

  it('on the last attempt: the reconciled answer is logged, and the job goes to review, not to retry', async () => {
    fx = await startSaga();
    // One attempt, raised to two by the approval: attempt 2 is the last.
    const dead = await approvedClaim(fx, THREE_STEP, { maxAttempts: 1 });
    expect(dead.job).toMatchObject({ attempts: 2, max_attempts: 2 });
    fx.checkpoint(dead, 'charge', 'started');
    await fx.applyDirectly(dead, 'charge', THREE_STEP);
    fx.expireLeases();

    const released = await reconcileExpiredLeases(fx.conn, fx.client, 'coord-1');
    expect(released).toEqual([
      {
        jobId: String(dead.job.id),
        to: 'review',
        reason: expect.stringMatching(/on its last attempt \(2 of 2\); step charge reconciled: completed/),
      },
    ]);
    expect(fx.job(dead.job.id).status).toBe('review');
    expect(fx.txLog(dead.job.id).at(-1)).toMatchObject({ action: 'reconcile', status: 'success' });
  });

  // BUG (src/coordinator/reconcile-expired.ts, the db.transaction in reconcileExpiredLeases, ~lines 58-78):
  // the reconcile checkpoint is appended first, then releaseExpiredLease may find the lease no
  // longer expired (the "dead" worker was only paused and heartbeated while the world was being
  // asked: heartbeat renews an expired lease it still holds). The transaction function then
  // RETURNS false instead of throwing, so better-sqlite3 COMMITS the reconcile row anyway: the
  // tx log gets a coordinator's "not_executed" for a job the coordinator did not release, while
  // the worker still holds it and is about to make the call. If that worker's call applies and it
  // dies before logging success, the next holder reads "not_executed" as the step's latest word,
  // does not reconcile, and charges a second time (shown below). It should throw inside the
  // transaction (or check the release first) so the checkpoint and the release commit together or not at all.
  it('a worker that heartbeats while the coordinator asks the world: no reconcile row is committed without the release', async () => {
    fx = await startSaga();
    const { dead } = await diedDuringCharge(fx, false);
    const jobId = dead.job.id;
    const charge = fx.keyOf(jobId, 'charge');
    // The zombie wakes while the coordinator waits for the world's answer, and renews its lease.
    const racing: WorldPort = {
      call: (tool, key, args, meta) => fx!.client.call(tool, key, args, meta),
      async reconcile(tool, key, fence) {
        const answer = await fx!.client.reconcile(tool, key, fence);
        expect(fx!.queue.heartbeat(dead.lease)).toMatchObject({ ok: true });
        return answer;
      },
    };
    expect(await reconcileExpiredLeases(fx.conn, racing, 'coord-1')).toEqual([]);
    expect(fx.job(jobId)).toMatchObject({ status: 'running', leased_by: 'w2' });

    // The zombie goes on: its call applies, then it dies for good before logging the answer.
    await fx.applyDirectly(dead, 'charge', THREE_STEP);
    fx.expireLeases();
    const next = fx.claim('w3');
    await fx.runAndSettle(next);

    // Ground truth first: one charge. Then the log: nothing from the coordinator for a lease it did not take.
    expect(fx.effectsFor(charge)).toHaveLength(1);
    expect(fx.txLog(jobId).filter((row) => row.worker === 'coord-1')).toEqual([]);
  });
});
