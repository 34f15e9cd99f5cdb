import { type QueueOptionSpecs, type QueueOptionValues, resolveQueueOptions } from '../../port/queue-options.js';

/*
 * RabbitMQ's own settings a drill may change, as its users set them. Its own
 * module, loading nothing of amqplib: every process reads the registry, and
 * the fit reads these.
 */

export const QUEUE_TYPES = ['quorum', 'classic'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

/** The options the rabbitmq queue accepts (`--queue-option KEY=VALUE`, a scenario's `queue_options`). */
export const RABBITMQ_OPTIONS = {
  queue_type: {
    describe:
      "x-queue-type of the work queue: quorum (the drill's default, not RabbitMQ's: only a quorum queue counts deliveries and " +
      "dead-letters a message past its x-delivery-limit) or classic (RabbitMQ's default: no delivery count, no limit; the consumer " +
      'rejects a message delivered past its budget, counting from the redelivered flag and what it saw)',
    default: 'quorum',
    type: { oneOf: QUEUE_TYPES },
  },
  prefetch: {
    describe: "basic.qos prefetch count of each consumer (the drill's default 1, one job at a time; RabbitMQ's own is unlimited)",
    default: 1,
    type: 'number',
  },
  heartbeat_s: {
    describe:
      'the connection heartbeat in seconds, by which RabbitMQ finds a frozen consumer (it closes a connection silent for about ' +
      "two of them and gives its messages back). 0: from the drill's lease, at least 1 s (RabbitMQ's own default is 60 s)",
    default: 0,
    type: 'number',
  },
} as const satisfies QueueOptionSpecs;

/** The options one drill runs RabbitMQ with. */
export interface RabbitmqOptions {
  queueType: QueueType;
  prefetch: number;
  /** 0: from the lease (heartbeatFor). */
  heartbeatSeconds: number;
}

/** The options from their resolved values (checked again, defaults filled in: a connection may be given none). */
export function rabbitmqOptions(values: QueueOptionValues): RabbitmqOptions {
  const resolved = resolveQueueOptions('rabbitmq', RABBITMQ_OPTIONS, values);
  return {
    queueType: resolved.queue_type as QueueType,
    prefetch: Math.max(1, Math.floor(Number(resolved.prefetch))),
    heartbeatSeconds: Math.max(0, Math.floor(Number(resolved.heartbeat_s))),
  };
}

/** The heartbeat a drill's connections use: the option, else a third of the lease in whole seconds, at least 1. */
export function heartbeatFor(options: RabbitmqOptions, leaseMs: number): number {
  return options.heartbeatSeconds > 0 ? options.heartbeatSeconds : Math.max(1, Math.floor(leaseMs / 3000));
}
