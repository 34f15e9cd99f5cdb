import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TxStatus } from '../../src/saga/tx-log.js';
import {
  approvedClaim,
  EMAIL_STEP,
  expectNothingOpen,
  planOf,
  RETRY_MS,
  type SagaFixture,
  SHORT_TIMEOUT_MS,
  startSaga,
  THREE_STEP,
  txLines,
  WRITE_STEP,
} from './fixture.js';

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

/** Tx log lines of one step from one attempt on. */
function stepLines(f: SagaFixture, jobId: number, stepId: string, fromAttempt = 0): string[] {
  return txLines(f.txLog(jobId).filter((row) => row.step_id === stepId && row.attempt >= fromAttempt));
}

/** Whether the job ever went to retry (a blind retry of an unknown outcome would). */
function everRetried(f: SagaFixture, jobId: number): boolean {
  return f.queue.history(jobId).some((event) => event.kind === 'transition' && event.to_status === 'retry');
}

describe('a step left in doubt by a dead previous attempt is reconciled before anything else', () => {
  for (const left of ['started', 'unknown'] as TxStatus[]) {
    it(`charge ${left}, and the world has it: completed, no second charge`, async () => {
      fx = await startSaga();
      const dying = await approvedClaim(fx, THREE_STEP);
      const jobId = dying.job.id;
      const charge = fx.keyOf(jobId, 'charge');
      // The dead worker checkpointed, called the world (which applied), and died before logging the answer.
      fx.checkpoint(dying, 'charge', 'started');
      if (left === 'unknown') fx.checkpoint(dying, 'charge', 'unknown');
      const ref = await fx.applyDirectly(dying, 'charge', THREE_STEP);
      expect(ref).toMatch(/^ch_/);

      fx.expireLeases();
      const next = fx.claim('w3');
      expect(next.job.attempts).toBe(3);
      const outcome = await fx.runAndSettle(next);
      expect(outcome.kind).toBe('done');
      expect(fx.job(jobId).status).toBe('done');

      // Settled by reconciliation, not by calling again.
      expect(stepLines(fx, jobId, 'charge', 3)).toEqual(['charge reconcile success']);
      expect(fx.txLog(jobId).find((row) => row.action === 'reconcile')).toMatchObject({ external_reference: ref, worker: 'w3', attempt: 3 });
      expect(fx.effectsFor(charge)).toHaveLength(1);
      expect(fx.calls().filter((call) => call.tool === 'charge_customer')).toHaveLength(1);
      expect(Object.values(fx.effectCounts())).toEqual([1, 1, 1]);
    });
  }

  it('charge started, and the world never got it: not_executed, then charged once', async () => {
    fx = await startSaga();
    const dying = await approvedClaim(fx, THREE_STEP);
    const jobId = dying.job.id;
    fx.checkpoint(dying, 'charge', 'started');

    fx.expireLeases();
    const next = fx.claim('w3');
    const outcome = await fx.runAndSettle(next);
    expect(outcome.kind).toBe('done');

    expect(stepLines(fx, jobId, 'charge', 3)).toEqual(['charge reconcile not_executed', 'charge execute started', 'charge execute success']);
    const charges = fx.effectsFor(fx.keyOf(jobId, 'charge'));
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ attempt: 3, worker: 'w3' });
    expect(fx.job(jobId).status).toBe('done');
  });

  for (const happened of [true, false]) {
    it(`send_email started (${happened ? 'it went out' : 'it did not'}), and no lookup exists: review, never a second email`, async () => {
      fx = await startSaga();
      const plan = planOf(EMAIL_STEP);
      const dying = fx.start(plan);
      const jobId = dying.job.id;
      fx.checkpoint(dying, 'email', 'started');
      if (happened) await fx.applyDirectly(dying, 'email', plan);

      fx.expireLeases();
      const next = fx.claim('w2');
      const outcome = await fx.runAndSettle(next);
      expect(outcome).toEqual({
        kind: 'review',
        reason: expect.stringMatching(
          /^outcome of step email \(send_email\) is unknown and reconciliation cannot settle it \(send_email cannot be looked up by key/,
        ),
      });
      expect((outcome as { reason: string }).reason).toContain('a person must check before it is repeated');
      expect(fx.job(jobId)).toMatchObject({ status: 'review', review_reason: expect.stringContaining('is unknown') });
      expect(stepLines(fx, jobId, 'email', 2)).toEqual(['email reconcile unknown']);
      // No call after the dead attempt's: the email is never sent by the queue a second time.
      expect(fx.calls().filter((call) => call.attempt === 2)).toEqual([]);
      expect(fx.effects()).toHaveLength(happened ? 1 : 0);
      expect(fx.queue.history(jobId).at(-1)).toMatchObject({ to_status: 'review', worker: 'w2' });
    });
  }

  it('an idempotent step in doubt is simply repeated: the world replays it by key', async () => {
    fx = await startSaga();
    const plan = planOf(WRITE_STEP);
    const dying = fx.start(plan);
    const jobId = dying.job.id;
    fx.checkpoint(dying, 'write', 'started');
    const ref = await fx.applyDirectly(dying, 'write', plan);

    fx.expireLeases();
    const outcome = await fx.runAndSettle(fx.claim('w2'));
    expect(outcome.kind).toBe('done');
    expect(stepLines(fx, jobId, 'write', 2)).toEqual(['write execute started', 'write execute success']);
    expect(fx.txLog(jobId).at(-1)?.external_reference).toBe(ref);
    expect(fx.effects()).toHaveLength(1);
    expect(fx.calls().map((call) => call.outcome)).toEqual(['applied', 'replayed']);
  });
});

describe('an unknown outcome at call time is reconciled, never retried blind', () => {
  it('drop (applied, response lost) on the charge: reconciled as completed, carries on, ONE charge', async () => {
    fx = await startSaga();
    const claimed = await approvedClaim(fx, THREE_STEP);
    const jobId = claimed.job.id;
    await fx.arm({ match: { tool: 'charge_customer' }, action: { type: 'drop' } });

    const outcome = await fx.runAndSettle(claimed);
    expect(outcome.kind).toBe('done');
    expect(fx.job(jobId).status).toBe('done');
    expect(stepLines(fx, jobId, 'charge', 2)).toEqual(['charge execute started', 'charge execute unknown', 'charge reconcile success']);
    expect(fx.txLog(jobId).find((row) => row.step_id === 'charge' && row.status === 'unknown')?.detail).toMatch(/connection was lost/);
    expect(fx.effectsFor(fx.keyOf(jobId, 'charge'))).toHaveLength(1);
    expect(
      fx
        .calls()
        .filter((call) => call.tool === 'charge_customer')
        .map((call) => call.outcome),
    ).toEqual(['dropped']);
    expect(Object.values(fx.effectCounts())).toEqual([1, 1, 1]);
  });

  it('error_after_apply (HTTP 500) on the charge: reconciled as completed, ONE charge', async () => {
    fx = await startSaga();
    const claimed = await approvedClaim(fx, THREE_STEP);
    await fx.arm({ match: { tool: 'charge_customer' }, action: { type: 'error_after_apply' } });
    expect((await fx.runAndSettle(claimed)).kind).toBe('done');
    expect(stepLines(fx, claimed.job.id, 'charge', 2)).toEqual(['charge execute started', 'charge execute unknown', 'charge reconcile success']);
    expect(fx.effectsFor(fx.keyOf(claimed.job.id, 'charge'))).toHaveLength(1);
  });

  it('delay past the timeout, not applied: reconciled as not_executed, outcome retry; the next attempt charges once', async () => {
    fx = await startSaga();
    const claimed = await approvedClaim(fx, THREE_STEP);
    const jobId = claimed.job.id;
    const charge = fx.keyOf(jobId, 'charge');
    await fx.arm({ match: { tool: 'charge_customer' }, action: { type: 'delay', ms: 5_000, applied: false } });

    const outcome = await fx.runAndSettle(claimed, fx.newClient(SHORT_TIMEOUT_MS));
    expect(outcome).toEqual({ kind: 'retry', error: expect.stringMatching(/no answer in time/) });
    expect(fx.job(jobId)).toMatchObject({ status: 'retry', last_error: expect.stringMatching(/no answer in time/) });
    expect(stepLines(fx, jobId, 'charge', 2)).toEqual(['charge execute started', 'charge execute unknown', 'charge reconcile not_executed']);
    expect(fx.effectsFor(charge)).toEqual([]);
    expect(fx.effectsFor(fx.keyOf(jobId, 'email'))).toEqual([]); // it stopped at the charge

    fx.clock.advance(RETRY_MS);
    const again = fx.claim('w3');
    expect((await fx.runAndSettle(again)).kind).toBe('done');
    // Not in doubt any more (the last word on it is not_executed): it is called, once.
    expect(stepLines(fx, jobId, 'charge', 3)).toEqual(['charge execute started', 'charge execute success']);
    expect(fx.effectsFor(charge)).toHaveLength(1);
  });

  it('delay past the timeout, applied: reconciled as completed, carries on, ONE charge', async () => {
    fx = await startSaga();
    const claimed = await approvedClaim(fx, THREE_STEP);
    const jobId = claimed.job.id;
    await fx.arm({ match: { tool: 'charge_customer' }, action: { type: 'delay', ms: 5_000, applied: true } });

    const outcome = await fx.runAndSettle(claimed, fx.newClient(SHORT_TIMEOUT_MS));
    expect(outcome.kind).toBe('done');
    expect(stepLines(fx, jobId, 'charge', 2)).toEqual(['charge execute started', 'charge execute unknown', 'charge reconcile success']);
    expect(fx.effectsFor(fx.keyOf(jobId, 'charge'))).toHaveLength(1);
    expect(everRetried(fx, jobId)).toBe(false);
  });

  for (const applied of [true, false]) {
    it(`a timeout on send_email (no lookup, ${applied ? 'applied' : 'not applied'}): review, never a retry`, async () => {
      fx = await startSaga();
      const claimed = fx.start(planOf(WRITE_STEP, EMAIL_STEP));
      const jobId = claimed.job.id;
      await fx.arm({ match: { tool: 'send_email' }, action: { type: 'delay', ms: 5_000, applied } });

      const outcome = await fx.runAndSettle(claimed, fx.newClient(SHORT_TIMEOUT_MS));
      expect(outcome).toEqual({
        kind: 'review',
        reason: expect.stringMatching(/^outcome of step email \(send_email\) is unknown and reconciliation cannot settle it/),
      });
      expect(fx.job(jobId)).toMatchObject({ status: 'review', review_reason: expect.stringContaining('a person must check') });
      expect(stepLines(fx, jobId, 'email')).toEqual(['email execute started', 'email execute unknown', 'email reconcile unknown']);
      expect(everRetried(fx, jobId)).toBe(false);
      expect(fx.effectsFor(fx.keyOf(jobId, 'email'))).toHaveLength(applied ? 1 : 0);
      // And it stays there: nothing claims a job in review.
      fx.clock.advance(10 * RETRY_MS);
      expect(fx.queue.claim('w-eager')).toBeNull();
    });
  }

  it('a timeout on send_email with retry_policy manual_only: review without even asking', async () => {
    fx = await startSaga();
    const claimed = fx.start(planOf({ ...EMAIL_STEP, retry_policy: 'manual_only' }));
    await fx.arm({ match: { tool: 'send_email' }, action: { type: 'delay', ms: 5_000, applied: true } });

    const outcome = await fx.runAndSettle(claimed, fx.newClient(SHORT_TIMEOUT_MS));
    expect(outcome).toEqual({
      kind: 'review',
      reason: 'outcome of step email (send_email) is unknown and its retry policy is manual_only',
      error: expect.stringMatching(/no answer in time/),
    });
    expect(stepLines(fx, claimed.job.id, 'email')).toEqual(['email execute started', 'email execute unknown']);
    expect(everRetried(fx, claimed.job.id)).toBe(false);
    expect(fx.effects()).toHaveLength(1);
  });
});
