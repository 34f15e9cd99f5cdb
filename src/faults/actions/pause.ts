import { isDuration, type PointFaultAction } from '../action.js';

/** The one thing a pause may wait for besides its time. */
const UNTIL = ['claimed_again'] as const;

type Pause = { type: 'pause'; ms: number; until?: (typeof UNTIL)[number] };

/**
 * pause: SIGSTOP past the lease, then SIGCONT: the zombie worker that wakes
 * after its job moved on. With `until: claimed_again` it wakes as soon as a
 * later attempt of its job reaches after_claim (`ms` the longest it waits), so
 * its late writes land while the next holder is mid-job, on any queue's
 * schedule of recovery.
 */
export const pause: PointFaultAction<'pause', Pause> = {
  name: 'pause',
  summary: 'SIGSTOP the process for ms (or until its job is claimed again), then SIGCONT it (the zombie worker)',
  fields: {
    ms: { kind: 'ms', required: true, describe: 'how long the process stays stopped (with until: the longest)' },
    until: { kind: 'text', required: false, describe: `${UNTIL.join(', ')}: wake as soon as a later attempt of the job is claimed` },
  },
  holds: true,
  stopsHolder: true,
  checkArg: (arg) => {
    if (!isDuration(arg?.ms)) return 'pause needs arg.ms >= 0';
    if (arg?.until !== undefined && !(UNTIL as readonly unknown[]).includes(arg.until)) return `pause's until is one of ${UNTIL.join(', ')}`;
    return null;
  },
  resolve: (arg) => ({ type: 'pause', ms: arg!.ms as number, ...(arg?.until === undefined ? {} : { until: arg.until as Pause['until'] }) }),
  async fire(action, control) {
    if (action.until === 'claimed_again') await control.holdUntilClaimedAgain(action.ms);
    else await control.hold(action.ms);
    if (!control.active) return;
    control.resumed();
    control.answer({ action: 'continue' });
  },
  // The parent carries a pause out itself, then answers `continue`.
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (action, where) => [
    {
      kind: 'pause',
      detail: action.until
        ? `SIGSTOP at ${where} until the job is claimed again (at most ${action.ms} ms)`
        : `SIGSTOP for ${action.ms} ms at ${where}`,
    },
  ],
  explore: (fc) => fc.constant({ ms: 900 }),
  exhaustive: [{ name: 'pause', fields: { ms: 900 } }],
};
