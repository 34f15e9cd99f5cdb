import { readFileSync } from 'node:fs';
import { failpoint, useClock } from '../faults/failpoint.js';
import type { Clock } from '../kernel/clock.js';
import type { Random } from '../kernel/random.js';
import { awaitRelease, signalReady } from '../kernel/start-barrier.js';
import { EnqueueError } from '../port/adapter.js';
import { connectQueue } from '../port/connect-queue.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';

/** One job a drill's producers enqueue: its key, its plan (already validated by the drill), its budget. */
export interface PlannedJob {
  key: string;
  plan: unknown;
  maxAttempts: number;
}

/** How long a producer waits at the start barrier for the harness to let it go. */
const RELEASE_TIMEOUT_MS = 60_000;

/**
 * Enqueues every job of a jobs file in order, reporting each outcome as a JSON
 * line (with when the call was made and answered), so the harness knows which
 * producer created which job, and whose calls on a key were in flight at once.
 * Several producers given the same file and start barrier race on every key.
 */
export async function producePlans(options: {
  locator: string;
  jobsFile: string;
  queue: QueueUnderDrill;
  clock: Clock;
  random: Random;
  name: string;
  write: (line: string) => void;
  /**
   * A start barrier's directory (src/kernel/start-barrier.ts): connected, the
   * producer says it is ready and waits to be let go, so producers started one
   * by one begin enqueueing at the same instant. None: it begins at once.
   */
  barrier?: string | undefined;
}): Promise<void> {
  const jobs = JSON.parse(readFileSync(options.jobsFile, 'utf8')) as PlannedJob[];
  // The harness measures this clock before any stamp of it reaches the queue (src/kernel/time-base.ts).
  useClock(options.clock);
  const queue = await connectQueue(options.queue, options.locator, { clock: options.clock, random: options.random });
  try {
    if (options.barrier !== undefined) {
      signalReady(options.barrier, options.name);
      await awaitRelease(options.barrier, { clock: options.clock, timeoutMs: RELEASE_TIMEOUT_MS });
    }
    for (const job of jobs) {
      await failpoint('enqueue', { worker: options.name, key: job.key });
      const calledAt = options.clock.now();
      try {
        const result = await queue.enqueue({
          key: job.key,
          action: 'plan',
          payload: JSON.stringify({ plan: job.plan }),
          maxAttempts: job.maxAttempts,
        });
        await failpoint('after_enqueue', { worker: options.name, key: job.key, jobKey: job.key, jobId: result.jobId });
        const answeredAt = options.clock.now();
        options.write(
          `${JSON.stringify({ event: 'enqueued', key: job.key, jobId: result.jobId, created: result.outcome === 'created', calledAt, answeredAt })}\n`,
        );
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
