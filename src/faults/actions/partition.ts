import { isDuration, type PointFaultAction } from '../action.js';

/** The one thing a partition may last until besides its time. */
const UNTIL = ['claimed_again'] as const;

type Partition = { type: 'partition'; ms: number; until?: (typeof UNTIL)[number] };

/**
 * partition: the process's connections to its queue's servers black-holed for
 * ms (nothing passes, nothing is closed, as a network that drops every packet
 * until it heals), while the process itself runs on. Past its lease, a worker
 * holding a job can neither renew nor complete: the queue must take the job
 * back, and when the partition heals, refuse what the worker then writes. The
 * drill is not at rest until it heals, so those late writes are seen. With
 * `until: claimed_again` it heals as soon as a later attempt of its job is
 * claimed (`ms` the longest), so the cut-off worker's held writes land while
 * the next holder is mid-job, on any queue's schedule of recovery.
 */
export const partition: PointFaultAction<'partition', Partition> = {
  name: 'partition',
  summary: "black-hole the process's connections to its queue's servers for ms while it runs on, then heal (what was held goes through)",
  fields: {
    ms: { kind: 'ms', required: true, describe: 'how long nothing passes (with until: the longest)' },
    until: { kind: 'text', required: false, describe: `${UNTIL.join(', ')}: heal as soon as a later attempt of the job is claimed` },
  },
  holds: true,
  stopsHolder: true,
  network: true,
  checkArg: (arg) => {
    if (!isDuration(arg?.ms)) return 'partition needs arg.ms >= 0';
    if (arg?.until !== undefined && !(UNTIL as readonly unknown[]).includes(arg.until)) return `partition's until is one of ${UNTIL.join(', ')}`;
    return null;
  },
  resolve: (arg) => ({ type: 'partition', ms: arg!.ms as number, ...(arg?.until === undefined ? {} : { until: arg.until as Partition['until'] }) }),
  async fire(action, control) {
    const link = control.network();
    const healed = link.partition(action.ms);
    control.answer({ action: 'continue' });
    if (action.until === 'claimed_again') void control.claimedAgain(action.ms).then(() => link.heal());
    // Not awaited: the process's next failpoints are answered while it is cut off.
    void healed.then(() => control.resumed());
  },
  // The harness cuts the link and answers `continue`: the process goes on unaware.
  isAnswer: () => false,
  carryOut: async () => undefined,
  resumeDetail: (where) => `the partition from ${where} healed`,
  timeline: (action, where) => [
    {
      kind: 'network',
      detail: action.until
        ? `partitioned from its servers at ${where} until the job is claimed again (at most ${action.ms} ms)`
        : `partitioned from its servers for ${action.ms} ms at ${where}`,
    },
  ],
  // Explore draws it only on a queue reached over the network (src/explore/action-scope.ts), and heals it within
  // explore's no-progress window: a partition waiting for a claim that cannot come (one worker, a producer's point)
  // would end the drill for want of progress and blame the queue.
  explore: (fc) => fc.constant({ ms: 1500 }),
  // Not in the exhaustive matrix: it runs on any queue, and an embedded one has no network.
  exhaustive: [],
};
