import type { PointFaultAction } from '../action.js';

/**
 * restart_server: while the process is held at the point, the queue's server
 * (PostgreSQL, Redis) is restarted, then the process goes on. Every
 * connection of every process is cut; what the queue acknowledged before must
 * still be there after. The drill's queue says how to restart its server
 * (QueueAdapter.restartServer), and only with --restart-servers: a queue
 * without one, or a drill without the flag, is not judged on it. Neither
 * explore nor the exhaustive matrix draws it: their lanes share the server.
 */
export const restartServer: PointFaultAction<'restart_server', { type: 'restart_server' }> = {
  name: 'restart_server',
  summary: "restart the queue's server (PostgreSQL, Redis) while the process is held at the point, then let it go on (needs --restart-servers)",
  fields: {},
  holds: true,
  stopsHolder: false,
  checkArg: (arg) => (arg === undefined ? null : 'restart_server takes no arg'),
  resolve: () => ({ type: 'restart_server' }),
  async fire(_action, control) {
    await control.restartServer();
    if (!control.active) return;
    control.resumed();
    control.answer({ action: 'continue' });
  },
  // The harness carries it out, then answers `continue`.
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (_action, where) => [{ kind: 'server-restart', detail: `the queue's server restarted while held at ${where}` }],
  exhaustive: [],
};
