import { readFileSync } from 'node:fs';
import { failpoint, useClock } from '../faults/failpoint.js';
import type { Clock } from '../kernel/clock.js';
import type { JobsFileEntry } from '../kernel/jobs-file.js';
import type { Random } from '../kernel/random.js';
import { awaitRelease, signalReady } from '../kernel/start-barrier.js';
import { connectQueue } from '../port/connect-queue.js';
import { enqueuePlans } from '../port/enqueue-plans.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';

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
  const jobs = JSON.parse(readFileSync(options.jobsFile, 'utf8')) as JobsFileEntry[];
  // The harness measures this clock before any stamp of it reaches the queue (src/kernel/time-base.ts).
  useClock(options.clock);
  const queue = await connectQueue(options.queue, options.locator, { clock: options.clock, random: options.random });
  try {
    if (options.barrier !== undefined) {
      signalReady(options.barrier, options.name);
      await awaitRelease(options.barrier, { clock: options.clock, timeoutMs: RELEASE_TIMEOUT_MS });
    }
    await enqueuePlans(queue, jobs, { name: options.name, clock: options.clock, write: options.write, pass: failpoint });
  } finally {
    await queue.close();
  }
}
