import { afterEach, describe, expect, it } from 'vitest';
import { statement } from '../../src/reference/sqlite/store.js';
import { REVIEW_TIMER_MS } from '../../src/variants/review-on-timer/review-on-timer-queue.js';
import { type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

/** A job refused for good: claimed once and sent to review by its worker. */
function reviewed(name: string) {
  const queue = fx.open(name);
  const jobId = fx.add(queue);
  const claimed = fx.claimBy(queue, 'w1');
  expect(queue.review(claimed.lease, 'permanent error: HTTP 401').ok).toBe(true);
  return { queue, jobId };
}

const triggers = (name: string) =>
  (statement(fx.open(name).db, `SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).all() as Array<{ name: string }>).map(
    (t) => t.name,
  );

describe('review-on-timer', () => {
  it('claims a job again once it has sat in review for the timer, with no person involved', () => {
    fx = storeFixture('review-timer');
    const { queue, jobId } = reviewed('review-on-timer');
    fx.clock.advance(REVIEW_TIMER_MS - 1);
    expect(queue.claim('w2')).toBeNull();
    fx.clock.advance(1);
    expect(fx.claimBy(queue, 'w2').job).toMatchObject({ id: jobId, status: 'running', attempts: 2 });
    expect(fx.moves(queue, jobId).slice(-2)).toEqual(['running>review by w1 (1)', 'review>running by w2 (2)']);
  });

  it("drops the store's transition trigger, so any writer can now make a change the state machine forbids", () => {
    fx = storeFixture('review-trigger');
    const { queue, jobId } = reviewed('review-on-timer');
    expect(triggers('review-on-timer')).toEqual(['agent_jobs_created_pending']);
    statement(queue.db, `UPDATE agent_jobs SET status = 'done' WHERE id = ?`).run(jobId);
    expect(queue.job(jobId)?.status).toBe('done');
  });

  it('reference: a job stays in review however long it waits, and the trigger refuses a way out', () => {
    fx = storeFixture('review-ref');
    const { queue, jobId } = reviewed('reference');
    fx.clock.advance(1_000 * REVIEW_TIMER_MS);
    expect(queue.claim('w2')).toBeNull();
    expect(triggers('reference')).toEqual(['agent_jobs_allowed_transitions', 'agent_jobs_created_pending']);
    expect(() => statement(queue.db, `UPDATE agent_jobs SET status = 'running' WHERE id = ?`).run(jobId)).toThrow(/QD_TRANSITION_NOT_ALLOWED/);
    expect(queue.job(jobId)?.status).toBe('review');
  });
});
