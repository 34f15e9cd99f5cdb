import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { pgBossAdapter } from '../../../src/adapters/pg-boss/pg-boss-adapter.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { Provisioned, QueueConnection } from '../../../src/port/adapter.js';
import { connectQueue } from '../../../src/port/connect-queue.js';
import type { Claim } from '../../../src/port/delivery.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';
import { pgBossSchemasLeft } from './schemas.js';

/*
 * The history the harness's trigger keeps of pg-boss's job table, read back
 * as the judge reads it: every change of state, pg-boss's fail (a delete and
 * a re-insert) as one change, a person's retry as the way out of review.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function freshQueue(name: string): Promise<{ provisioned: Provisioned; queue: QueueConnection }> {
  const dir = tempRunDir(`pg-boss-${name}`);
  cleanup.push(dir.remove);
  const provisioned = await pgBossAdapter.provision({ runDir: dir.dir, runId: `test pg-boss ${name} ${process.pid}`, servers: { pgUrl: PG_URL } });
  cleanup.push(() => provisioned.teardown({ keep: false }));
  // No retry delay asked: pg-boss keeps its floor of a second (set on the queue at the first claim, as a worker does).
  const queue = await connectQueue(pgBossAdapter, provisioned.locator, {
    clock: systemClock(),
    random: seededRandom(1),
    retryDelay: { baseMs: 0, capMs: 0, jitterMs: 0 },
    servers: { pgUrl: PG_URL },
  });
  cleanup.push(() => queue.close());
  return { provisioned, queue };
}

/** Claims as `worker` once a job is ready (a retried one waits out pg-boss's 1 s delay), or null after 5 s. */
async function claimWhenReady(queue: QueueConnection, worker: string): Promise<Claim | null> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const claim = await queue.manual!.claim(worker);
    if (claim !== null || Date.now() > deadline) return claim;
    await sleep(50);
  }
}

const path = (events: Array<{ from: string | null; to: string; actor: string }>) => events.map((e) => `${e.from ?? '(new)'}>${e.to}:${e.actor}`);

describe.skipIf(skipWithoutPg('the pg-boss history trigger (test/adapters/pg-boss/history.test.ts)'))('pg-boss: the history trigger', () => {
  it('records a send, a fetch and a complete; a second send of the key is deduplicated', async () => {
    const { queue } = await freshQueue('done');
    const first = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 2 });
    const again = await queue.enqueue({ key: 'k1', action: 'sleep', payload: '{}', maxAttempts: 2 });
    expect(first.outcome).toBe('created');
    expect(again).toEqual({ outcome: 'deduplicated', jobId: first.jobId });
    const claim = await queue.manual!.claim('w1');
    expect(claim).toMatchObject({ jobId: first.jobId, attempt: 1, epoch: 1, token: null });
    expect(await queue.manual!.complete(claim!, 'd'.repeat(64))).toEqual({ ok: true, status: 'done' });
    // Nothing active matched: pg-boss's answer says so, and the adapter reports it refused.
    expect(await queue.manual!.complete(claim!, 'd'.repeat(64))).toMatchObject({ ok: false });
    const { jobs, history } = await queue.snapshot();
    expect(jobs).toEqual([
      expect.objectContaining({ id: first.jobId, key: 'k1', status: 'done', outcome: 'done', attempts: 1, resultDigest: 'd'.repeat(64) }),
    ]);
    expect(path(history)).toEqual(['(new)>pending:producer', 'pending>running:worker', 'running>done:worker']);
  });

  it("reads pg-boss's fail as one change to retry, review as failed, and a person's retry as review to pending", async () => {
    const { queue } = await freshQueue('review');
    const { jobId } = await queue.enqueue({ key: 'k2', action: 'sleep', payload: '{}', maxAttempts: 3 });
    const first = await queue.manual!.claim('w1');
    expect(await queue.manual!.retry(first!, 'transient')).toEqual({ ok: true, status: 'retry' });
    const second = await claimWhenReady(queue, 'w1');
    expect(second).toMatchObject({ jobId, attempt: 2, epoch: 2 });
    // One attempt is left, but review sends it to pg-boss's failed state now.
    expect(await queue.manual!.review(second!, 'a person must look')).toEqual({ ok: true, status: 'review' });
    expect(await queue.manual!.claim('w1')).toBeNull();
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'looked at it')).toBe(true);
    expect(await queue.human!.requeueFromReview(jobId, 'alice', 'twice')).toBe(false);
    const third = await queue.manual!.claim('w2');
    expect(third).toMatchObject({ jobId, attempt: 3, epoch: 3 });
    const { jobs, history } = await queue.snapshot();
    expect(path(history)).toEqual([
      '(new)>pending:producer',
      'pending>running:worker',
      'running>retry:worker',
      'retry>running:worker',
      'running>review:worker',
      'review>pending:human',
      'pending>running:worker',
    ]);
    expect(history.map((e) => e.attempt)).toEqual([0, 1, 1, 2, 2, 2, 3]);
    expect(history[2]?.retryDelayMs).toBeGreaterThanOrEqual(0);
    expect(jobs[0]).toMatchObject({ status: 'running', attempts: 3, maxAttempts: 3 });
    const sagaRows = await queue.saga.rows(jobId);
    expect(sagaRows.map((r) => `${r.action}:${r.worker}`)).toEqual(['requeue:human:alice']);
  });

  it('gives back the attempts review took when a person requeues (an approval on the first of three attempts)', async () => {
    const { queue } = await freshQueue('budget');
    const { jobId } = await queue.enqueue({ key: 'k3', action: 'sleep', payload: '{}', maxAttempts: 3 });
    const first = await queue.manual!.claim('w1');
    expect(await queue.manual!.review(first!, 'approval required')).toEqual({ ok: true, status: 'review' });
    expect(await queue.human!.requeueFromReview(jobId, 'bob', 'approved')).toBe(true);
    const second = await queue.manual!.claim('w1');
    expect(second).toMatchObject({ attempt: 2, maxAttempts: 3 });
    // Attempt 2 of 3 fails: another attempt, not review.
    expect(await queue.manual!.retry(second!, 'transient')).toEqual({ ok: true, status: 'retry' });
  });

  it('drops the schema at teardown', async () => {
    const { provisioned } = await freshQueue('teardown');
    const mine = new RegExp(`^${provisioned.locator}$`);
    expect(await pgBossSchemasLeft(mine)).toEqual([provisioned.locator]);
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
    expect(await pgBossSchemasLeft(mine)).toEqual([]);
  });
});
