import { type QueueOptionSpecs, type QueueOptionValues, resolveQueueOptions } from '../../port/queue-options.js';

/*
 * JetStream's own settings a drill may change, as its users set them on a
 * stream and a consumer. The adapter otherwise runs JetStream as it ships,
 * with two exceptions said in each option: the ack wait follows the drill's
 * lease, and max_deliver the drill's largest attempt budget, unless set. Its
 * own module, loading nothing of the NATS client: every process reads the
 * registry, and the fit reads these.
 */

/** How a consumer waits longer before each redelivery: JetStream's `backoff` list, made from the ack wait. */
export const BACKOFF_MODES = ['none', 'doubling'] as const;
export type BackoffMode = (typeof BACKOFF_MODES)[number];

/** JetStream's own default duplicate window (2 minutes). */
export const JETSTREAM_DUPLICATE_WINDOW_MS = 120_000;

/** The options nats-jetstream accepts (`--queue-option KEY=VALUE`, a scenario's `queue_options`). */
export const NATS_JETSTREAM_OPTIONS = {
  ack_wait_ms: {
    describe:
      "the consumer's ack_wait, in ms: how long a delivery may go without an ack or an in-progress ack before JetStream redelivers it " +
      "(0: the drill's lease_ms; JetStream's own default is 30 s)",
    default: 0,
    type: 'number',
  },
  max_deliver: {
    describe:
      "the consumer's max_deliver: how many times JetStream delivers one message at most (0: the largest max_attempts of the drill's jobs; " +
      'a job with a smaller budget is terminated unrun when delivered past it)',
    default: 0,
    type: 'number',
  },
  duplicate_window_ms: {
    describe:
      "the stream's duplicate_window, in ms: how long a Nats-Msg-Id (the idempotency key) is remembered; the same key published " +
      "after it makes a new message (JetStream's default: 2 min)",
    default: JETSTREAM_DUPLICATE_WINDOW_MS,
    type: 'number',
  },
  backoff: {
    describe:
      "the consumer's backoff list: none (every redelivery waits ack_wait), or doubling (ack_wait, 2x, 4x ... for each delivery in turn; " +
      'JetStream then replaces ack_wait by the list)',
    default: 'none',
    type: { oneOf: BACKOFF_MODES },
  },
} as const satisfies QueueOptionSpecs;

/** The options one drill runs JetStream with. */
export interface NatsOptions {
  /** 0: the drill's lease. */
  ackWaitMs: number;
  /** 0: the drill's largest attempt budget. */
  maxDeliver: number;
  duplicateWindowMs: number;
  backoff: BackoffMode;
}

/** The options from their resolved values (checked again, defaults filled in: a connection may be given none). */
export function natsOptions(values: QueueOptionValues): NatsOptions {
  const resolved = resolveQueueOptions('nats-jetstream', NATS_JETSTREAM_OPTIONS, values);
  return {
    ackWaitMs: Number(resolved.ack_wait_ms),
    maxDeliver: Number(resolved.max_deliver),
    duplicateWindowMs: Number(resolved.duplicate_window_ms),
    backoff: resolved.backoff as BackoffMode,
  };
}

/** Why these options cannot make a stream and consumer JetStream accepts, or null. */
export function badOption(options: NatsOptions): string | null {
  if (!Number.isInteger(options.ackWaitMs) || options.ackWaitMs < 0)
    return `ack_wait_ms must be a whole number of ms >= 0 (got ${options.ackWaitMs})`;
  if (!Number.isInteger(options.maxDeliver) || options.maxDeliver < 0) return `max_deliver must be a whole number >= 0 (got ${options.maxDeliver})`;
  if (!Number.isInteger(options.duplicateWindowMs) || options.duplicateWindowMs < 1)
    return `duplicate_window_ms must be a whole number of ms >= 1 (got ${options.duplicateWindowMs})`;
  return null;
}

/** The default budget where a drill names none (JetStream's own max_deliver default is -1: unlimited). */
export const DEFAULT_MAX_DELIVER = 3;

/** The consumer's max_deliver for a drill whose jobs have these budgets. */
export function maxDeliverFor(options: NatsOptions, budgets: readonly number[] | undefined): number {
  if (options.maxDeliver > 0) return options.maxDeliver;
  const largest = Math.max(0, ...(budgets ?? []));
  return largest > 0 ? largest : DEFAULT_MAX_DELIVER;
}

/**
 * The backoff list for an ack wait: none, or the ack wait doubling for each
 * delivery but the last (JetStream requires max_deliver > the list's length;
 * its last value serves every later delivery).
 */
export function backoffFor(mode: BackoffMode, ackWaitMs: number, maxDeliver: number): number[] {
  if (mode === 'none') return [];
  return Array.from({ length: Math.max(1, maxDeliver - 1) }, (_, i) => ackWaitMs * 2 ** i);
}

/** How long delivery `deliveryCount` is held without an ack: the backoff list's entry for it where there is one, else ack_wait. */
export function ackWaitOf(deliveryCount: number, ackWaitMs: number, backoff: readonly number[]): number {
  if (backoff.length === 0) return ackWaitMs;
  return backoff[Math.min(Math.max(deliveryCount, 1), backoff.length) - 1] ?? ackWaitMs;
}
