import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compensateWith, rulesOf } from '../adapters/saga.js';
import { BRANCH_STEP, EMAIL_STEP, expectNothingOpen, planOf, type SagaFixture, startSaga, WRITE_STEP } from '../saga/fixture.js';

let fx: SagaFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(expectNothingOpen);

/** branch, then write, then an email the world refuses for good: the saga waits for compensation. */
async function failedSaga(f: SagaFixture): Promise<void> {
  const claimed = f.start(planOf(BRANCH_STEP, WRITE_STEP, EMAIL_STEP));
  await f.arm({ match: { tool: 'send_email' }, action: { type: 'fail', status: 401 } });
  expect((await f.runAndSettle(claimed)).kind).toBe('compensate');
}

const undone = (f: SagaFixture) =>
  f
    .effects()
    .filter((e) => e.compensates !== null)
    .map((e) => e.tool);

describe.each([
  { name: 'compensation-forward', order: ['delete_branch', 'restore_file_version'] },
  { name: 'reference', order: ['restore_file_version', 'delete_branch'] },
])('$name', ({ name, order }) => {
  it(`undoes the completed steps in the order ${order.join(', ')}`, async () => {
    fx = await startSaga();
    await failedSaga(fx);
    expect(await compensateWith(fx, rulesOf(name))).toMatchObject({ kind: 'compensated' });
    expect(undone(fx)).toEqual(order);
  });
});
