import { isDuration, type PointFaultAction } from '../action.js';

/** pause: SIGSTOP past the lease, then SIGCONT: the zombie worker that wakes after its job moved on. */
export const pause: PointFaultAction<'pause', { type: 'pause'; ms: number }> = {
  name: 'pause',
  summary: 'SIGSTOP the process for ms, then SIGCONT it (the zombie worker)',
  fields: { ms: { kind: 'ms', required: true, describe: 'how long the process stays stopped' } },
  holds: true,
  stopsHolder: true,
  checkArg: (arg) => (isDuration(arg?.ms) ? null : 'pause needs arg.ms >= 0'),
  resolve: (arg) => ({ type: 'pause', ms: arg!.ms as number }),
  async fire(action, control) {
    await control.hold(action.ms);
    if (!control.active) return;
    control.resumed();
    control.answer({ action: 'continue' });
  },
  // The parent carries a pause out itself, then answers `continue`.
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (action, where) => [{ kind: 'pause', detail: `SIGSTOP for ${action.ms} ms at ${where}` }],
  explore: (fc) => fc.constant({ ms: 900 }),
  exhaustive: [{ name: 'pause', fields: { ms: 900 } }],
};
