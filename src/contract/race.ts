import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HarnessError } from '../kernel/errors.js';
import type { RaceResult } from './check.js';
import type { RaceTask } from './race-thread.js';

/** The compiled thread script: the same relative path from src/contract (tests) and dist/contract (the CLI). */
const THREAD_SCRIPT = fileURLToPath(new URL('../../dist/contract/race-thread.js', import.meta.url));

/**
 * Runs one task per thread, all starting at one instant, and collects what
 * each did. The instant is a gate, not a time: each thread connects, says it
 * is ready and blocks on the gate; once every one is ready the gate opens for
 * all at once (a thread slow to start on a loaded machine would otherwise
 * begin after the others had finished, and a check-then-act mistake would
 * not be seen racing). Real threads, so a queue whose check and act are two steps (a
 * look-up, then a write) is seen racing with itself as separate processes
 * would make it race; every thread is waited for, and a failed one fails the race.
 * A second gate holds every thread's connection open until all have answered:
 * on a queue whose hold on a job is its holder's connection (RabbitMQ), a
 * thread that finished first and closed would hand its jobs back to the
 * racers still claiming, a lawful takeover the check would take for a second
 * holder.
 */
export async function race(tasks: ReadonlyArray<Omit<RaceTask, 'gate' | 'thread'>>, env: Readonly<Record<string, string>>): Promise<RaceResult[]> {
  const gate = new SharedArrayBuffer(8);
  const openCell = (index: 0 | 1) => {
    const cells = new Int32Array(gate);
    Atomics.store(cells, index, 1);
    Atomics.notify(cells, index);
  };
  const open = () => openCell(0);
  let ready = 0;
  let answered = 0;
  const runs = tasks.map(
    (task, index) =>
      new Promise<RaceResult>((resolve, reject) => {
        const worker = new Worker(THREAD_SCRIPT, {
          workerData: { ...task, thread: index + 1, gate } satisfies RaceTask,
          env: { ...process.env, ...env },
        });
        let answer: { ok: true; result: RaceResult } | { ok: false; error: string } | undefined;
        worker.on('message', (message: { ready: true } | NonNullable<typeof answer>) => {
          if ('ready' in message) {
            if (++ready === tasks.length) open();
          } else {
            answer = message;
            if (++answered === tasks.length) openCell(1);
          }
        });
        worker.on('error', reject);
        worker.on('exit', (code) => {
          // A thread that ended before the race would hold the others at the gates for ever: let them run and finish.
          open();
          openCell(1);
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
