import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { approvedClaim, expectNothingOpen, type SagaFixture, startSaga, THREE_STEP } from './fixture.js';

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

// The holder logged a call as failed and died before it wrote what follows.
function failedAndDied(f: SagaFixture, claimed: Awaited<ReturnType<typeof approvedClaim>>, errorKind: string): void {
  const ok = f.queue.appendTx(claimed.lease, {
    stepId: 'charge',
    action: 'execute',
    key: f.keyOf(claimed.job.id, 'charge'),
    status: 'failed',
    detail: `injected ${errorKind}`,
    errorKind,
  });
  if (!ok) throw new Error('checkpoint refused');
}

describe('a step whose last call failed, left by a holder that died before saying what follows', () => {
  it('a permanent failure is not tried again: the next holder does what the dead one would have (compensate the write)', async () => {
    fx = await startSaga();
    const dying = await approvedClaim(fx, THREE_STEP);
    failedAndDied(fx, dying, 'permanent');
    const callsBefore = fx.calls().length;
    fx.expireLeases();
    const outcome = await fx.runAndSettle(fx.claim('w3'));
    expect(outcome).toMatchObject({
      kind: 'compensate',
      reason: expect.stringMatching(/step charge \(charge_customer\) failed for good \(permanent, found on resuming\)/),
    });
    expect(fx.calls()).toHaveLength(callsBefore);
    expect(fx.effectsFor(fx.keyOf(dying.job.id, 'charge'))).toEqual([]);
  });

  it('a transient failure is tried again', async () => {
    fx = await startSaga();
    const dying = await approvedClaim(fx, THREE_STEP);
    failedAndDied(fx, dying, 'transient');
    fx.expireLeases();
    const outcome = await fx.runAndSettle(fx.claim('w3'));
    expect(outcome.kind).toBe('done');
    expect(fx.effectsFor(fx.keyOf(dying.job.id, 'charge'))).toHaveLength(1);
  });
});
