import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../kernel/clock.js';
import { seededRandom } from '../kernel/random.js';
import type { RetryDelayPolicy, ServerSettings } from '../port/adapter.js';
import { connectQueue } from '../port/connect-queue.js';
import { loadQueue } from '../queues/registry.js';
import type { RaceOp, RaceResult } from './check.js';

/** What a racing thread is told: which queue, where, on which clock, what to do, and when to start. */
export interface RaceTask {
  queue: string;
  locator: string;
  servers: ServerSettings;
  /** The caller's clock offset (a queue on the caller's clock sees the time the check moved it to). */
  offsetMs: number;
  leaseMs: number;
  skewMarginMs: number;
  retryDelay: RetryDelayPolicy;
  op: RaceOp;
  thread: number;
  /**
   * Two cells. Every thread blocks on the first once connected, until all are:
   * then they start at once, so they really race. Each blocks on the second
   * once it answered, until all have: then they close.
   */
  gate: SharedArrayBuffer;
}

/*
 * One racing thread of the contract's checks: its own connection (another
 * process's, as far as the queue can tell: for SQLite its own handle to the
 * file, for a server its own pool), the operation, the results posted back.
 */
const task = workerData as RaceTask;
const queue = await connectQueue(await loadQueue(task.queue), task.locator, {
  clock: systemClock(task.offsetMs),
  random: seededRandom(task.thread),
  leaseMs: task.leaseMs,
  skewMarginMs: task.skewMarginMs,
  retryDelay: task.retryDelay,
  servers: task.servers,
});
try {
  const result: RaceResult = { thread: task.thread, enqueued: [], claimed: [] };
  parentPort!.postMessage({ ready: true });
  Atomics.wait(new Int32Array(task.gate), 0, 0);
  if (task.op.kind === 'enqueue') {
    for (const key of task.op.keys) result.enqueued.push({ ...(await queue.enqueue({ key, action: 'sleep', payload: '{}', maxAttempts: 3 })), key });
  } else {
    const manual = queue.manual;
    if (!manual) throw new Error('the queue offers no manual claim');
    for (;;) {
      const claim = await manual.claim(`${task.op.prefix}${task.thread}`);
      if (!claim) break;
      result.claimed.push(claim);
    }
  }
  parentPort!.postMessage({ ok: true, result });
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
} finally {
  Atomics.wait(new Int32Array(task.gate), 1, 0);
  await queue.close();
}
