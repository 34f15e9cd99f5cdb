import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compensateWith, rulesOf } from '../adapters/saga.js';
import { BRANCH_STEP, EMAIL_STEP, expectNothingOpen, planOf, type SagaFixture, startSaga, WRITE_STEP } from '../saga/fixture.js';

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

/** branch, then write, then an email the world refuses for good; restoring the file is refused for good too. */
async function failedSagaWithFailingUndo(f: SagaFixture): Promise<number> {
  const claimed = f.start(planOf(BRANCH_STEP, WRITE_STEP, EMAIL_STEP));
  await f.arm({ match: { tool: 'send_email' }, action: { type: 'fail', status: 401 } });
  await f.arm({ match: { tool: 'restore_file_version' }, action: { type: 'fail', status: 403 } });
  expect((await f.runAndSettle(claimed)).kind).toBe('compensate');
  return claimed.job.id;
}

describe('failed-compensation-ok', () => {
  it('records a compensation that failed for good as compensated, with no incident', async () => {
    fx = await startSaga();
    const jobId = await failedSagaWithFailingUndo(fx);
    expect(await compensateWith(fx, rulesOf('failed-compensation-ok'))).toMatchObject({ kind: 'compensated' });
    expect(fx.job(jobId)).toMatchObject({ status: 'review', review_reason: expect.stringMatching(/^compensated/) });
    expect(fx.incidents(jobId)).toEqual([]);
  });

  it('reference: ends it in COMPENSATION_FAILED with an incident for manual recovery', async () => {
    fx = await startSaga();
    const jobId = await failedSagaWithFailingUndo(fx);
    expect(await compensateWith(fx, rulesOf('reference'))).toMatchObject({ kind: 'compensation_failed' });
    expect(fx.job(jobId)).toMatchObject({ status: 'review', review_reason: expect.stringMatching(/^COMPENSATION_FAILED/) });
    expect(fx.incidents(jobId)).toHaveLength(1);
  });
});
