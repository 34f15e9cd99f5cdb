import { isDuration, type PointFaultAction } from '../action.js';

type Latency = { type: 'latency'; ms: number; jitterMs: number; forMs?: number };

/**
 * latency: from the point on, every chunk between the process and its queue's
 * servers is delayed by ms each way (plus up to jitter_ms drawn from the seed),
 * in order, for the rest of the drill or for for_ms: a slow link. Above the
 * renewal period, a worker's renewals land late; the queue must not let two
 * holders run the job. A link slower than a whole transaction's lease stops
 * the process from holding any lease while it lasts: one that ends (for_ms)
 * shows whether the queue recovers once it is fast again.
 */
export const latency: PointFaultAction<'latency', Latency> = {
  name: 'latency',
  summary: "delay every chunk between the process and its queue's servers by ms each way (plus up to jitter_ms from the seed), from the point on",
  fields: {
    ms: { kind: 'ms', required: true, describe: 'the delay each way' },
    jitter_ms: { kind: 'ms', required: false, describe: 'up to this much more, drawn from the seed for each chunk' },
    for_ms: { kind: 'ms', required: false, describe: 'how long the link stays slow [default: to the end of the drill]' },
  },
  holds: false,
  stopsHolder: false,
  network: true,
  checkArg: (arg) => {
    if (!isDuration(arg?.ms)) return 'latency needs arg.ms >= 0';
    if (arg?.jitter_ms !== undefined && !isDuration(arg.jitter_ms)) return "latency's jitter_ms is >= 0";
    if (arg?.for_ms !== undefined && !isDuration(arg.for_ms)) return "latency's for_ms is >= 0";
    return null;
  },
  resolve: (arg) => ({
    type: 'latency',
    ms: arg!.ms as number,
    jitterMs: (arg?.jitter_ms as number | undefined) ?? 0,
    ...(arg?.for_ms === undefined ? {} : { forMs: arg.for_ms as number }),
  }),
  async fire(action, control) {
    const link = control.network();
    link.setLatency(action.ms, action.jitterMs);
    control.answer({ action: 'continue' });
    // Unref'd: the links close with the drill, and take their latency with them.
    if (action.forMs !== undefined) setTimeout(() => link.setLatency(0), action.forMs).unref();
  },
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (action, where) => [
    {
      kind: 'network',
      detail:
        `${action.ms} ms${action.jitterMs > 0 ? ` + 0..${action.jitterMs} ms` : ''} each way to its servers from ${where} ` +
        (action.forMs === undefined ? 'on' : `for ${action.forMs} ms`),
    },
  ],
  // Explore draws it only on a queue reached over the network (src/explore/action-scope.ts), for a while: slower than a
  // lease for the rest of a drill, a process (the coordinator) can hold no lease at all, and the drill cannot come to rest.
  explore: (fc) => fc.constant({ ms: 300, jitter_ms: 100, for_ms: 1500 }),
  // Not in the exhaustive matrix: it runs on any queue, and an embedded one has no network.
  exhaustive: [],
};
