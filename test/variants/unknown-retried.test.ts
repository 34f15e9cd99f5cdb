import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reconcileExpiredLeases } from '../../src/coordinator/reconcile-expired.js';
import { rulesOf, runWith } from '../adapters/saga.js';
import { EMAIL_STEP, expectNothingOpen, planOf, RETRY_MS, type SagaFixture, startSaga } from '../saga/fixture.js';

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

describe('unknown-retried', () => {
  it('retries an email whose response was lost, and sends it twice', async () => {
    fx = await startSaga();
    const rules = rulesOf('unknown-retried');
    const first = fx.start(planOf(EMAIL_STEP), { maxAttempts: 3 });
    await fx.arm({ match: { tool: 'send_email' }, action: { type: 'drop' } });
    const outcome = await runWith(fx, first, rules);
    expect(outcome.kind).toBe('retry');
    fx.settle(first, outcome);
    fx.clock.advance(RETRY_MS);
    const second = fx.claim('w2');
    const again = await runWith(fx, second, rules);
    expect(again.kind).toBe('done');
    expect(fx.effectsFor(fx.keyOf(first.job.id, 'email'))).toHaveLength(2);
  });

  it("has the coordinator retry a dead worker's email in doubt without asking the world", async () => {
    fx = await startSaga();
    const claimed = fx.start(planOf(EMAIL_STEP));
    fx.checkpoint(claimed, 'email', 'started'); // the worker died mid-call
    fx.expireLeases();
    const released = await reconcileExpiredLeases(fx.conn, fx.client, 'coord-1', rulesOf('unknown-retried'));
    expect(released).toEqual([{ jobId: String(claimed.job.id), to: 'retry', reason: expect.not.stringMatching(/reconcil/) }]);
  });

  it('reference: reconciles the email whose response was lost and, since nobody can look an email up, sends it to review', async () => {
    fx = await startSaga();
    const first = fx.start(planOf(EMAIL_STEP), { maxAttempts: 3 });
    await fx.arm({ match: { tool: 'send_email' }, action: { type: 'drop' } });
    expect(await runWith(fx, first, rulesOf('reference'))).toMatchObject({ kind: 'review', reason: expect.stringMatching(/unknown/) });
    expect(fx.effectsFor(fx.keyOf(first.job.id, 'email'))).toHaveLength(1);
  });

  it("reference: the coordinator asks the world about a dead worker's email in doubt, and sends it to review", async () => {
    fx = await startSaga();
    const claimed = fx.start(planOf(EMAIL_STEP));
    fx.checkpoint(claimed, 'email', 'started');
    fx.expireLeases();
    expect(await reconcileExpiredLeases(fx.conn, fx.client, 'coord-1', rulesOf('reference'))).toEqual([
      { jobId: String(claimed.job.id), to: 'review', reason: expect.stringMatching(/outcome is unknown/) },
    ]);
  });
});
