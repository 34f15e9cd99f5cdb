import { retryDelayMs } from '../../port/retry-delay.js';
import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';

/**
 * The reference queue with one plausible mistake: retry delays follow the
 * exponential schedule, but with no jitter. Each job waits long enough; jobs
 * that failed together (one outage) all come back at the same instant, and
 * hit the service that just recovered in one wave.
 */
export class NoJitterQueue extends SqliteQueue {
  protected override retryDelayFor(attempt: number): number {
    return retryDelayMs(attempt, { ...this.retryDelay, jitterMs: 0 }, this.options.random);
  }
}
