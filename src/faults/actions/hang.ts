import type { PointFaultAction } from '../action.js';

/** hang: the process stays alive at the point with nothing to do, for ever: a hung step, not an exit. */
export const hang: PointFaultAction<'hang', { type: 'hang' }> = {
  name: 'hang',
  summary: 'the process never goes on from the point (it lives on, its lease must be taken back)',
  fields: {},
  holds: false,
  stopsHolder: true,
  checkArg: (arg) => (arg === undefined ? null : 'hang takes no arg'),
  resolve: () => ({ type: 'hang' }),
  async fire(_action, control) {
    control.answer({ action: 'hang' });
  },
  isAnswer: () => true,
  async carryOut() {
    // A ref'd timer keeps the process alive with nothing to do.
    setInterval(() => undefined, 2 ** 31 - 1);
    await new Promise<never>(() => undefined);
  },
  timeline: () => [],
  // Not drawn by explore: a hung attempt costs its whole deadline (ten leases).
  exhaustive: [],
};
