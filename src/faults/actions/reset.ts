import type { PointFaultAction } from '../action.js';

/**
 * reset: every connection between the process and its queue's servers closed
 * with RST at the point, what was in flight lost; the process goes on and must
 * connect again. Nothing the queue acknowledged may be lost, and nothing it did
 * not may count as done.
 */
export const reset: PointFaultAction<'reset', { type: 'reset' }> = {
  name: 'reset',
  summary: "close the process's connections to its queue's servers with RST at the point, then let it go on",
  fields: {},
  holds: false,
  stopsHolder: false,
  network: true,
  checkArg: (arg) => (arg === undefined ? null : 'reset takes no arg'),
  resolve: () => ({ type: 'reset' }),
  async fire(_action, control) {
    control.network().reset();
    control.answer({ action: 'continue' });
  },
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (_action, where) => [{ kind: 'network', detail: `its connections to its servers reset at ${where}` }],
  // Explore draws it only on a queue reached over the network (src/explore/action-scope.ts).
  explore: (fc) => fc.constant({}),
  // Not in the exhaustive matrix: it runs on any queue, and an embedded one has no network.
  exhaustive: [],
};
