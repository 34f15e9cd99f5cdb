import { AckPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { millis, nanos } from '@nats-io/transport-node';
import { CONSUMER_NAME } from './names.js';
import { type BackoffMode, backoffFor } from './options.js';

/** The consumer's settings in effect, in ms: what each delivery's ack wait and the attempt bound are read from. */
export interface ConsumerSettings {
  ackWaitMs: number;
  maxDeliver: number;
  /** JetStream's backoff list (empty: every delivery waits ackWaitMs). */
  backoff: number[];
}

function settingsOf(config: { ack_wait?: number; max_deliver?: number; backoff?: number[] }): ConsumerSettings {
  return {
    ackWaitMs: millis(config.ack_wait ?? 0),
    maxDeliver: config.max_deliver ?? -1,
    backoff: (config.backoff ?? []).map((ns) => millis(ns)),
  };
}

/** The consumer a drill's provisioning makes: ack_wait and backoff are set by the first worker, from its lease (ensure). */
export function consumerConfig(ackWaitMs: number, maxDeliver: number, backoff: readonly number[]) {
  return {
    durable_name: CONSUMER_NAME,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ackWaitMs),
    max_deliver: maxDeliver,
    ...(backoff.length > 0 ? { backoff: backoff.map((ms) => nanos(ms)) } : {}),
  };
}

/**
 * The drill's consumer as one connection sees it: read once and kept (its
 * max_deliver never changes after provisioning), and set to the drill's ack
 * wait before a worker's first pull, as a JetStream deployment configures its
 * consumer for its workers' handlers (every worker of a drill has the same
 * lease, so the first one sets it and the rest find it set).
 */
export class ConsumerView {
  private known: Promise<ConsumerSettings> | undefined;
  private ensured: Promise<ConsumerSettings> | undefined;

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly wanted: { ackWaitMs: number; backoff: BackoffMode },
  ) {}

  /** The settings in effect (read once). */
  read(): Promise<ConsumerSettings> {
    this.known ??= this.jsm.consumers.info(this.stream, CONSUMER_NAME).then((info) => settingsOf(info.config));
    this.known.catch(() => {
      this.known = undefined;
    });
    return this.known;
  }

  /** The settings with the drill's ack wait (and backoff made from it) in effect, updating the consumer where they differ. */
  ensure(): Promise<ConsumerSettings> {
    this.ensured ??= this.apply();
    this.ensured.catch(() => {
      this.ensured = undefined;
    });
    return this.ensured;
  }

  private async apply(): Promise<ConsumerSettings> {
    const info = await this.jsm.consumers.info(this.stream, CONSUMER_NAME);
    const now = settingsOf(info.config);
    const backoff = backoffFor(this.wanted.backoff, this.wanted.ackWaitMs, now.maxDeliver);
    // With a backoff list JetStream sets ack_wait to its first value itself.
    const ackWaitMs = backoff[0] ?? this.wanted.ackWaitMs;
    let settings = now;
    if (now.ackWaitMs !== ackWaitMs || now.backoff.join() !== backoff.join()) {
      const updated = await this.jsm.consumers.update(this.stream, CONSUMER_NAME, {
        ack_wait: nanos(ackWaitMs),
        ...(backoff.length > 0 ? { backoff: backoff.map((ms) => nanos(ms)) } : {}),
      });
      settings = settingsOf(updated.config);
    }
    this.known = Promise.resolve(settings);
    return settings;
  }
}
