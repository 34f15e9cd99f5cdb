import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectQueue, type QueueImpl } from '../adapters/registry.js';
import { failpoint } from '../faults/failpoint.js';
import type { Clock } from '../kernel/clock.js';
import type { Random } from '../kernel/random.js';
import { EnqueueError } from '../port/adapter.js';

/** One job a drill's producers enqueue: its key, its plan (already validated by the drill), its budget. */
export interface PlannedJob {
  key: string;
  plan: unknown;
  maxAttempts: number;
}

/**
 * Enqueues every job of a jobs file in order, reporting each outcome as a JSON
 * line, so the harness knows which producer created which job. Several
 * producers given the same file race on every key.
 */
export async function producePlans(options: {
  locator: string;
  jobsFile: string;
  queue: QueueImpl;
  clock: Clock;
  random: Random;
  name: string;
  write: (line: string) => void;
  /** Begin at this moment (ms since the epoch), so producers started one by one race from the same instant. */
  startAt?: number | undefined;
}): Promise<void> {
  const jobs = JSON.parse(readFileSync(options.jobsFile, 'utf8')) as PlannedJob[];
  const wait = (options.startAt ?? 0) - options.clock.now();
  if (wait > 0) await sleep(wait);
  const queue = await connectQueue(options.queue, options.locator, { clock: options.clock, random: options.random });
  try {
    for (const job of jobs) {
      await failpoint('enqueue', { worker: options.name, key: job.key });
      try {
        const result = await queue.enqueue({
          key: job.key,
          action: 'plan',
          payload: JSON.stringify({ plan: job.plan }),
          maxAttempts: job.maxAttempts,
        });
        options.write(`${JSON.stringify({ event: 'enqueued', key: job.key, jobId: result.jobId, created: result.outcome === 'created' })}\n`);
      } catch (error) {
        if (!(error instanceof EnqueueError)) throw error;
        // Said, and the producer goes on: an indefinite failure may still have made the job, which the store will show.
        options.write(`${JSON.stringify({ event: 'enqueue-failed', key: job.key, definite: error.definite, error: error.message })}\n`);
      }
    }
  } finally {
    await queue.close();
  }
}
