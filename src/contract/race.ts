import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HarnessError } from '../kernel/errors.js';
import type { RaceResult } from './check.js';
import type { RaceTask } from './race-thread.js';

/** The compiled thread script: the same relative path from src/contract (tests) and dist/contract (the CLI). */
const THREAD_SCRIPT = fileURLToPath(new URL('../../dist/contract/race-thread.js', import.meta.url));

/** How long the threads get to connect before they all start at once. */
const START_AFTER_MS = 400;

/**
 * Runs one task per thread, all starting at one instant, and collects what
 * each did. Real threads, so a queue whose check and act are two steps (a
 * look-up, then a write) is seen racing with itself as separate processes
 * would make it race; every thread is waited for, and a failed one fails the race.
 */
export async function race(tasks: ReadonlyArray<Omit<RaceTask, 'startAt' | 'thread'>>, env: Readonly<Record<string, string>>): Promise<RaceResult[]> {
  const startAt = Date.now() + START_AFTER_MS;
  const runs = tasks.map(
    (task, index) =>
      new Promise<RaceResult>((resolve, reject) => {
        const worker = new Worker(THREAD_SCRIPT, {
          workerData: { ...task, thread: index + 1, startAt } satisfies RaceTask,
          env: { ...process.env, ...env },
        });
        let answer: { ok: true; result: RaceResult } | { ok: false; error: string } | undefined;
        worker.on('message', (message: typeof answer) => {
          answer = message;
        });
        worker.on('error', reject);
        worker.on('exit', (code) => {
          if (answer?.ok) resolve(answer.result);
          else
            reject(
              new HarnessError('QD_CONTRACT_RACE', `racing thread ${index + 1} failed: ${answer && !answer.ok ? answer.error : `exit code ${code}`}`),
            );
        });
      }),
  );
  // Every thread is waited for, even when one failed: none outlives the race.
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<RaceResult>).value);
}
