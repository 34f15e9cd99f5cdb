import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApprovalError, approveStep } from '../../src/saga/approve.js';
import { stepStates } from '../../src/saga/tx-log.js';
import {
  CHARGE_STEP,
  EMAIL_STEP,
  expectNothingOpen,
  planOf,
  RETRY_MS,
  type SagaFixture,
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

describe('prepare, approve, commit (the happy path of the three-step plan)', () => {
  it('stops before the charge for a person, then runs each effect exactly once', async () => {
    fx = await startSaga();
    const first = fx.start(THREE_STEP);
    const jobId = first.job.id;
    const [write, charge, email] = ['write', 'charge', 'email'].map((step) => fx!.keyOf(jobId, step)) as [string, string, string];

    // Attempt 1: the write runs, the charge is prepared, and the job waits for a person.
    const waiting = await fx.runAndSettle(first);
    expect(waiting).toEqual({
      kind: 'review',
      awaitingApproval: true,
      reason: expect.stringMatching(/^approval required before step charge \(charge_customer\)/),
    });
    expect(fx.job(jobId)).toMatchObject({
      status: 'review',
      outcome: 'awaiting_approval',
      review_reason: expect.stringContaining('approval required'),
      leased_by: null,
    });
    expect(txLines(fx.txLog(jobId))).toEqual(['write execute started', 'write execute success', 'charge prepare success']);
    expect(fx.effectCounts()).toEqual({ [write]: 1 });
    expect(fx.effectsFor(charge)).toEqual([]);

    // Review is sticky: nothing claims it until a person acts.
    fx.clock.advance(10 * RETRY_MS);
    expect(fx.queue.claim('w-eager')).toBeNull();

    // The person's approval is logged as theirs and sends the job back.
    expect(await approveStep(fx.conn, String(jobId), 'alice')).toBe('charge');
    expect(fx.job(jobId)).toMatchObject({ status: 'pending', outcome: null });
    // The approval and the requeue are the person's, in the saga's log, committed with the requeue.
    const [approval, requeue] = fx.txLog(jobId).slice(-2);
    expect(approval).toMatchObject({
      step_id: 'charge',
      action: 'approve',
      status: 'success',
      worker: 'human:alice',
      idempotency_key: charge,
      epoch: 1,
    });
    expect(requeue).toMatchObject({ step_id: '(job)', action: 'requeue', status: 'success', worker: 'human:alice', detail: 'approved step charge' });
    expect(stepStates(fx.txLog(jobId)).get('charge')).toMatchObject({ prepared: true, approvedBy: 'human:alice' });
    // A second approval has nothing to approve.
    await expect(approveStep(fx.conn, String(jobId), 'bob')).rejects.toThrow(ApprovalError);

    // Attempt 2: the write is not run again, the charge and the email run, verified, done.
    const second = fx.claim('w2');
    expect(second.job.attempts).toBe(2);
    const done = await fx.runAndSettle(second);
    expect(done).toEqual({ kind: 'done', digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(fx.job(jobId)).toMatchObject({ status: 'done', result_digest: (done as { digest: string }).digest, leased_by: null });
    expect(txLines(fx.txLog(jobId))).toEqual([
      'write execute started',
      'write execute success',
      'charge prepare success',
      'charge approve success',
      '(job) requeue success',
      'charge execute started',
      'charge execute success',
      'email execute started',
      'email execute success',
    ]);

    // Ground truth: one effect per key, each attributed to the attempt that made it.
    expect(fx.effectCounts()).toEqual({ [write]: 1, [charge]: 1, [email]: 1 });
    expect(fx.effects().map((e) => [e.tool, e.attempt, e.worker])).toEqual([
      ['write_file', 1, 'w1'],
      ['charge_customer', 2, 'w2'],
      ['send_email', 2, 'w2'],
    ]);
    // The log's references are the world's.
    const refs = Object.fromEntries(fx.effects().map((e) => [e.key, e.externalRef]));
    const successes = fx.txLog(jobId).filter((row) => row.action === 'execute' && row.status === 'success');
    expect(successes.map((row) => row.external_reference)).toEqual([refs[write], refs[charge], refs[email]]);
  });

  it('refuses an approval for a job that is not waiting for one', async () => {
    fx = await startSaga();
    const claimed = fx.start(planOf(WRITE_STEP));
    await expect(approveStep(fx.conn, String(claimed.job.id), 'alice')).rejects.toThrow(/running, not waiting for an approval/);
    expect(await fx.runAndSettle(claimed)).toMatchObject({ kind: 'done' });
    await expect(approveStep(fx.conn, String(claimed.job.id), 'alice')).rejects.toThrow(ApprovalError);
  });
});

describe('policy is checked before any step runs', () => {
  const cases = [
    {
      name: 'send_email declared idempotent',
      plan: planOf(WRITE_STEP, { ...EMAIL_STEP, idempotent: true }),
      says: /step email: declared idempotent, but send_email is not/,
    },
    {
      name: 'charge_customer without requires_approval',
      plan: planOf(WRITE_STEP, { ...CHARGE_STEP, requires_approval: false }),
      says: /step charge: charge_customer is critical and needs requires_approval/,
    },
    {
      name: 'write_file with a compensation it does not have',
      plan: planOf({ ...WRITE_STEP, compensation: 'delete_branch' }),
      says: /step write: compensation "delete_branch", write_file's is "restore_file_version"/,
    },
  ];
  for (const { name, plan, says } of cases) {
    it(`${name}: review "policy violation", nothing applied`, async () => {
      fx = await startSaga();
      const claimed = fx.start(plan);
      const outcome = await fx.runAndSettle(claimed);
      expect(outcome).toEqual({ kind: 'review', reason: expect.stringMatching(/^policy violation, blocked before any step ran: /) });
      expect((outcome as { reason: string }).reason).toMatch(says);
      expect(fx.job(claimed.job.id)).toMatchObject({ status: 'review', review_reason: expect.stringMatching(says) });
      // Blocked before anything ran: no checkpoint, no call, no effect (the write step first in the plan did not run either).
      expect(fx.txLog(claimed.job.id)).toEqual([]);
      expect(fx.calls()).toEqual([]);
      expect(fx.effects()).toEqual([]);
    });
  }
});
