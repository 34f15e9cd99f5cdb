import { isDuration, type PointFaultAction } from '../action.js';

type Latency = { type: 'latency'; ms: number; jitterMs: number };

/**
 * latency: from the point on, every chunk between the process and its queue's
 * servers is delayed by ms each way (plus up to jitter_ms drawn from the seed),
 * in order, for the rest of the drill: a slow link. Above the renewal period, a
 * worker's renewals land late; the queue must not let two holders run the job.
 */
export const latency: PointFaultAction<'latency', Latency> = {
  name: 'latency',
  summary: "delay every chunk between the process and its queue's servers by ms each way (plus up to jitter_ms from the seed), from the point on",
  fields: {
    ms: { kind: 'ms', required: true, describe: 'the delay each way' },
    jitter_ms: { kind: 'ms', required: false, describe: 'up to this much more, drawn from the seed for each chunk' },
  },
  holds: false,
  stopsHolder: false,
  network: true,
  checkArg: (arg) => {
    if (!isDuration(arg?.ms)) return 'latency needs arg.ms >= 0';
    if (arg?.jitter_ms !== undefined && !isDuration(arg.jitter_ms)) return "latency's jitter_ms is >= 0";
    return null;
  },
  resolve: (arg) => ({ type: 'latency', ms: arg!.ms as number, jitterMs: (arg?.jitter_ms as number | undefined) ?? 0 }),
  async fire(action, control) {
    control.network().setLatency(action.ms, action.jitterMs);
    control.answer({ action: 'continue' });
  },
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (action, where) => [
    {
      kind: 'network',
      detail: `${action.ms} ms${action.jitterMs > 0 ? ` + 0..${action.jitterMs} ms` : ''} each way to its servers from ${where} on`,
    },
  ],
  // Neither explore nor the exhaustive matrix draws it yet: they run on any queue, and an embedded one has no network.
  exhaustive: [],
};
