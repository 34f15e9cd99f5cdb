import type { Clock } from '../kernel/clock.js';
import { makeIdempotencyKeyFromJsonText } from '../kernel/idempotency-key.js';
import type { Random } from '../kernel/random.js';
import { connectQueue } from '../port/connect-queue.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';

export interface ProduceOptions {
  queue: QueueUnderDrill;
  locator: string;
  clock: Clock;
  random: Random;
  /** Jobs n = start .. start + count - 1. */
  start: number;
  count: number;
  action: string;
  /** Extra payload fields every job carries (e.g. `{ ms: 20 }`). */
  payload: Record<string, unknown>;
  maxAttempts: number;
  workflowVersion: string;
}

/**
 * Enqueues a deterministic batch of jobs: job n's key depends only on n and the
 * options, so two producers given the same options race on every key, and the
 * store's UNIQUE constraint must let exactly one of them create each job.
 */
export async function produce(options: ProduceOptions): Promise<{ created: number; existing: number; keys: string[] }> {
  const queue = await connectQueue(options.queue, options.locator, { clock: options.clock, random: options.random });
  let created = 0;
  const keys: string[] = [];
  try {
    for (let n = options.start; n < options.start + options.count; n++) {
      const payloadJson = JSON.stringify({ ...options.payload, n });
      const key = makeIdempotencyKeyFromJsonText({
        repo: 'demo/queue-drill',
        branch: 'main',
        action: options.action,
        payloadJson,
        workflowVersion: options.workflowVersion,
      });
      keys.push(key);
      if ((await queue.enqueue({ key, action: options.action, payload: payloadJson, maxAttempts: options.maxAttempts })).outcome === 'created')
        created++;
    }
  } finally {
    await queue.close();
  }
  return { created, existing: options.count - created, keys };
}
