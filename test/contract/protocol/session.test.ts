import { afterEach, describe, expect, it } from 'vitest';
import { CheckContext } from '../../../src/contract/protocol/check-context.js';
import { renderTimeScale } from '../../../src/contract/protocol/render.js';
import { ANSWER_TIMEOUT_MS, answerTimeoutAt, Session, StepFailure } from '../../../src/contract/protocol/session.js';
import { checkTimeScale } from '../../../src/contract/protocol/time-scale.js';

/*
 * The check's waits are the session's, not a module constant: a child that
 * never answers fails each wait after the session's answer timeout, and the
 * failure names that timeout. Small explicit timeouts keep it fast.
 */

/** A child that reads its stdin and never answers (it exits when its stdin closes). */
const SILENT = [process.execPath, '-e', 'process.stdin.resume()'];

/** The least a 300 ms wait must last by the wall clock (see `failing`). */
const SOON_ENOUGH_MS = 250;

describe("a session's answer timeout", () => {
  let sessions: Session[] = [];
  afterEach(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    for (const s of sessions) expect(s.channel.hasExited, 'no child left').toBe(true);
    sessions = [];
  });

  function silent(answerTimeoutMs?: number): Session {
    const session = new Session(SILENT, { now: Date.now, ...(answerTimeoutMs === undefined ? {} : { answerTimeoutMs }) });
    sessions.push(session);
    return session;
  }

  /**
   * How long `wait` took to fail, and its failure. A timer is set from the
   * event loop's cached time, which a busy tick leaves behind the real clock,
   * so a 300 ms timeout can fire 15 ms before 300 ms have passed by
   * performance.now() (seen in a full test run): the waits are held to most of
   * their timeout (SOON_ENOUGH_MS), enough to tell 300 ms from no wait at all.
   */
  async function failing(wait: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
    const started = performance.now();
    const error = await wait.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, 'the wait failed').not.toBeNull();
    return { ms: performance.now() - started, error };
  }

  it('is ANSWER_TIMEOUT_MS unless given', () => {
    expect(silent().answerTimeoutMs).toBe(ANSWER_TIMEOUT_MS);
  });

  it('bounds an answer, and the failure names it', async () => {
    const { ms, error } = await failing(silent(300).ok('hello'));
    expect(error).toBeInstanceOf(StepFailure);
    expect(error).toMatchObject({ about: 'hello', message: expect.stringMatching(/gave no answer within 300 ms \[no_answer\]/) });
    expect(ms).toBeGreaterThanOrEqual(SOON_ENOUGH_MS);
  });

  it('bounds a refusal waited for (failure) the same way: no answer is what it returns, for the step to judge', async () => {
    const refusal = await silent(300).failure('no_such_op', {}, 'fail with a code');
    expect(refusal).toMatchObject({ code: 'no_answer', definite: false, message: expect.stringMatching(/within 300 ms/) });
  });

  it('bounds a delivery, and the failure names it', async () => {
    const { ms, error } = await failing(silent(300).nextDelivery('after work'));
    expect(error).toMatchObject({ about: 'deliver', message: 'no deliver event within 300 ms after work' });
    expect(ms).toBeGreaterThanOrEqual(SOON_ENOUGH_MS);
  });

  it("bounds a step's own request on the channel (work) too", async () => {
    const { error } = await failing(silent(300).channel.request('work', { worker_id: 'w' }));
    expect(error).toMatchObject({ code: 'no_answer', message: expect.stringMatching(/within 300 ms/) });
  });

  it('is what the check context gives every child it starts', async () => {
    const ctx = new CheckContext(SILENT, 7_500);
    const byDefault = new CheckContext(SILENT);
    try {
      expect(ctx.start().answerTimeoutMs).toBe(7_500);
      expect(byDefault.answerTimeoutMs).toBe(ANSWER_TIMEOUT_MS);
    } finally {
      await ctx.endStep();
      await ctx.dispose();
      await byDefault.dispose();
    }
  });
});

describe('the answer timeout at a time scale', () => {
  it.each([
    [1, 5_000],
    [1.5, 7_500],
    [2, 10_000],
    [8, 40_000],
    // A scale under 1 does not shorten it: nothing about a child gets faster.
    [0.5, 5_000],
    [0.1, 5_000],
  ])('×%s waits %s ms', (scale, ms) => {
    expect(answerTimeoutAt(scale)).toBe(ms);
  });

  it('is the given scale, or the one auto measured (once)', async () => {
    let measured = 0;
    const measure = async () => {
      measured++;
      return { startupMs: 820, timerLatenessMs: 7, scale: 2.5 };
    };
    expect(await checkTimeScale(3, measure)).toEqual({ scale: 3, calibration: null, answerTimeoutMs: 15_000 });
    expect(measured).toBe(0);
    expect(await checkTimeScale('auto', measure)).toEqual({
      scale: 2.5,
      calibration: { startupMs: 820, timerLatenessMs: 7, scale: 2.5 },
      answerTimeoutMs: 12_500,
    });
    expect(measured).toBe(1);
  });

  it('is stated in the first line: the scale, what auto measured, and the wait', () => {
    expect(renderTimeScale({ scale: 2, calibration: { startupMs: 820, timerLatenessMs: 7, scale: 2 }, answerTimeoutMs: 10_000 })).toBe(
      'time scale ×2 (auto: a process starts in 820 ms here now, a timer fires 7 ms late): each answer and delivery is waited for up to 10000 ms',
    );
    expect(renderTimeScale({ scale: 0.5, calibration: null, answerTimeoutMs: 5_000 })).toBe(
      'time scale ×0.5 (given): each answer and delivery is waited for up to 5000 ms',
    );
  });
});
