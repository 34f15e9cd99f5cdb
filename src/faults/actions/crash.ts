import type { PointFaultAction } from '../action.js';

/** crash: SIGKILL while the child is held at the point, before anything it would do next has happened. */
export const crash: PointFaultAction<'crash', { type: 'crash' }> = {
  name: 'crash',
  summary: 'SIGKILL the process while it is held at the point',
  fields: {},
  holds: false,
  stopsHolder: true,
  checkArg: (arg) => (arg === undefined ? null : 'crash takes no arg'),
  resolve: () => ({ type: 'crash' }),
  async fire(_action, control) {
    // Never answered: the child is blocked in its read, so the kill lands exactly at the point.
    control.signal('SIGKILL');
  },
  isAnswer: () => true,
  async carryOut() {
    // The parent kills us while we wait; had it answered instead, die the same way.
    process.kill(process.pid, 'SIGKILL');
    await new Promise<never>(() => undefined);
  },
  timeline: (_action, where) => [{ kind: 'kill', detail: `SIGKILL while held at ${where}` }],
  explore: (fc) => fc.constant({}),
  exhaustive: [{ name: 'crash', fields: {} }],
};
