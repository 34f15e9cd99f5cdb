import { afterEach, describe, expect, it } from 'vitest';
import type { QueueConnection } from '../../../src/port/adapter.js';
import type { QueueOwnWrite, Settlement } from '../../../src/port/delivery.js';
import { skipWithoutPg } from '../../helpers/postgres.js';
import { freshPgBossQueue } from './fresh-queue.js';

/*
 * pg-boss's work() fails a job whose handler outlives expireIn, while the
 * handler runs on (#555). The worker is told as that write goes out, and
 * whether pg-boss applied it, so the world can place it among the holders'
 * writes (src/adapters/pg-boss/expiry-watch.ts). A handler that ends in time
 * is told nothing.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

interface Told {
  write: QueueOwnWrite;
  applied: boolean | null;
}

/** One worker runs one job with a handler that takes `handlerMs`; resolves with what it was told of pg-boss's own writes. */
async function runOne(queue: QueueConnection, handlerMs: number): Promise<Told[]> {
  const told: Promise<Told>[] = [];
  const stop = new AbortController();
  await queue.work(
    async () => {
      await new Promise((resolve) => setTimeout(resolve, handlerMs));
      const retry: Settlement = { kind: 'retry', error: 'slow' };
      return retry;
    },
    {
      workerId: 'w1',
      stop: stop.signal,
      pollMs: 100,
      exitWhenDrained: false,
      maxJobs: 1,
      maxAttemptMs: 60_000,
      log: () => {},
      onQueueWrite: (_claim, write, applied) => told.push(applied.then((ok) => ({ write, applied: ok }))),
    },
  );
  return Promise.all(told);
}

describe.skipIf(skipWithoutPg('pg-boss’s own timeout fail (test/adapters/pg-boss/expiry-watch.test.ts)'))('pg-boss: its own fail at expireIn', () => {
  it('is told as it goes out, and as applied once the history shows it', async () => {
    const queue = await freshPgBossQueue('expiry', 1_000, cleanup);
    await queue.enqueue({ key: 'slow', action: 'plan', payload: '{}', maxAttempts: 3 });
    expect(await runOne(queue, 1_600)).toEqual([{ write: 'expired', applied: true }]);
  });

  it('is not told for a handler that ends within expireIn', async () => {
    const queue = await freshPgBossQueue('in-time', 1_000, cleanup);
    await queue.enqueue({ key: 'quick', action: 'plan', payload: '{}', maxAttempts: 3 });
    expect(await runOne(queue, 10)).toEqual([]);
  });
});
