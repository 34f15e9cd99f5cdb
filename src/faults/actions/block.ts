import { isDuration, type PointFaultAction } from '../action.js';

/**
 * block: the process blocks its own event loop for ms at the point, as a
 * CPU-bound handler or a synchronous call does. Unlike a pause, nothing
 * stopped it: the OS runs it, but none of its timers, lease renewals or I/O
 * happen until the block ends, and then it goes on as if nothing happened.
 * This is the zombie real queues meet (BullMQ #3183: a lock that could not be
 * renewed, another worker took the job, the first still finished). The drill
 * is not at rest until the block has run its time: were the blocked worker
 * stopped first, its late write would never be made, and the drill would pass
 * having judged nothing.
 */
export const block: PointFaultAction<'block', { type: 'block'; ms: number }> = {
  name: 'block',
  summary: 'the process blocks its own event loop for ms (no timers, no lease renewal, no I/O), then goes on: a zombie nothing stopped',
  fields: { ms: { kind: 'ms', required: true, describe: 'how long the event loop stays blocked' } },
  holds: true,
  stopsHolder: true,
  checkArg: (arg) => (isDuration(arg?.ms) ? null : 'block needs arg.ms >= 0'),
  resolve: (arg) => ({ type: 'block', ms: arg!.ms as number }),
  async fire(action, control) {
    control.answer({ action: 'block', ms: action.ms });
    // Held for as long as the child blocks itself; not awaited, so its next failpoints are answered as they come.
    const ended = setTimeout(() => control.resumed(), action.ms);
    ended.unref();
  },
  resumeDetail: (where) => `the event loop blocked at ${where} goes on`,
  isAnswer: (answer) => isDuration(answer.ms),
  async carryOut(answer) {
    // Atomics.wait blocks this thread outright (no busy loop burning a core the other processes need).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, answer.ms as number);
  },
  timeline: () => [],
  explore: (fc) => fc.constant({ ms: 900 }),
  exhaustive: [{ name: 'block', fields: { ms: 900 } }],
};
