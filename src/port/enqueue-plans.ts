import type { Clock } from '../kernel/clock.js';
import type { JobsFileEntry } from '../kernel/jobs-file.js';
import { EnqueueError, type QueueConnection } from './adapter.js';

/**
 * Where the loop stops to ask the harness what to do: a producer process's
 * failpoints (src/faults/failpoint.ts), or nothing (the harness's own producer).
 */
export type PassPoint = (
  point: 'enqueue' | 'after_enqueue',
  context: { worker: string; key: string; jobKey?: string; jobId?: string },
) => Promise<void>;

/**
 * Enqueues `jobs` in order through `queue`, one JSON line a job through
 * `write` (`enqueued`, with when the call was made and answered, or
 * `enqueue-failed`): what src/drill/accepted-jobs.ts reads back. Shared by the
 * producer process (src/producer/produce-plans.ts) and the harness's own
 * producer (src/drill/runner/hosted-producer.ts).
 */
export async function enqueuePlans(
  queue: Pick<QueueConnection, 'enqueue'>,
  jobs: readonly JobsFileEntry[],
  options: { name: string; clock: Clock; write: (line: string) => void; pass: PassPoint },
): Promise<void> {
  for (const job of jobs) {
    await options.pass('enqueue', { worker: options.name, key: job.key });
    const calledAt = options.clock.now();
    try {
      const result = await queue.enqueue({
        key: job.key,
        action: 'plan',
        payload: JSON.stringify({ plan: job.plan }),
        maxAttempts: job.maxAttempts,
      });
      await options.pass('after_enqueue', { worker: options.name, key: job.key, jobKey: job.key, jobId: result.jobId });
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
}
