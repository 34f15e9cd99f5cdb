import { Worker } from 'bullmq';
import { openRedis, resolveRedisUrl } from '../../adapters/bullmq/redis.js';
import type { ChildSpec } from './child-spec.js';
import type { ChildWork } from './child-work.js';

/** The one BullMQ queue of a throughput cell, under the cell's own key prefix. */
export const BULLMQ_BENCH_QUEUE = 'bench';

/**
 * BullMQ's own Worker with a no-op processor, one job at a time (as a
 * reference worker takes them), BullMQ's defaults otherwise (completed jobs
 * kept, as the reference keeps its rows). It stops once BullMQ says the queue
 * is drained.
 */
export async function openBullmqWork(spec: ChildSpec): Promise<ChildWork> {
  const connection = openRedis(resolveRedisUrl());
  const worker = new Worker(BULLMQ_BENCH_QUEUE, async () => undefined, { connection, prefix: spec.locator, concurrency: 1, autorun: false });
  worker.on('error', () => undefined);
  await worker.waitUntilReady();
  return {
    async run(stop) {
      let units = 0;
      let lastAt: number | null = null;
      worker.on('completed', () => {
        units++;
        lastAt = Date.now();
      });
      worker.on('drained', () => void worker.close());
      stop.addEventListener('abort', () => void worker.close(), { once: true });
      await worker.run();
      return { units, lastAt };
    },
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
