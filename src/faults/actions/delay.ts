import { setTimeout as sleep } from 'node:timers/promises';
import { isDuration, type PointFaultAction } from '../action.js';

/** delay: the process waits at the point for ms, then goes on (a slow step, a late write). */
export const delay: PointFaultAction<'delay', { type: 'delay'; ms: number }> = {
  name: 'delay',
  summary: 'the process waits ms at the point, then goes on',
  fields: { ms: { kind: 'ms', required: true, describe: 'how long it waits' } },
  holds: false,
  stopsHolder: false,
  checkArg: (arg) => (isDuration(arg?.ms) ? null : 'delay needs arg.ms >= 0'),
  resolve: (arg) => ({ type: 'delay', ms: arg!.ms as number }),
  async fire(action, control) {
    control.answer({ action: 'delay', ms: action.ms });
  },
  isAnswer: (answer) => isDuration(answer.ms),
  async carryOut(answer) {
    await sleep(answer.ms as number);
  },
  timeline: () => [],
  explore: (fc) => fc.constant({ ms: 20 }),
  exhaustive: [{ name: 'delay', fields: { ms: 50 } }],
};
