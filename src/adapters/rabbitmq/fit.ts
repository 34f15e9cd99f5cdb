import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { heartbeatFor, rabbitmqOptions } from './options.js';

/**
 * A frozen consumer is found by its connection's heartbeat, whole seconds:
 * RabbitMQ closes a connection silent for about two heartbeats of at least
 * 1 s. A lease shorter than that could never be taken back in time.
 */
export const SHORTEST_LEASE_MS = 3_000;

/** The x-delivery-limit that lets a message be delivered `maxAttempts` times (a quorum queue dead-letters it on the return after limit + 1 deliveries). */
export function deliveryLimitFor(maxAttempts: number): number {
  return Math.max(0, maxAttempts - 1);
}

/**
 * Whether RabbitMQ can run a drill as asked, and the settings it runs it
 * with. Refused: the heartbeat fault point (RabbitMQ renews nothing, so it
 * could never fire).
 */
export function fitRabbitmq(demands: DrillDemands): DrillFit {
  if (demands.points.includes('heartbeat')) {
    return {
      ok: false,
      reason: 'RabbitMQ renews nothing (a delivery is held until its channel closes), so the heartbeat fault point can never fire',
    };
  }
  const options = rabbitmqOptions(demands.queueOptions);
  const budgets = [...new Set(demands.maxAttempts)].sort((a, b) => a - b);
  const largest = budgets.at(-1) ?? 1;
  const smaller = budgets.length > 1 ? '; a job with a smaller budget is rejected by its consumer when delivered past it' : '';
  return {
    ok: true,
    mapping: {
      'x-queue-type': options.queueType,
      'x-delivery-limit':
        options.queueType === 'quorum'
          ? `${deliveryLimitFor(largest)} (max_attempts ${largest}${smaller})`
          : 'none: a classic queue counts no deliveries; the consumer rejects a message delivered past its budget',
      'x-dead-letter-exchange': "the drill's dead-letter queue: review",
      prefetch: options.prefetch,
      heartbeatSeconds: heartbeatFor(options, demands.leaseMs),
      ack: 'manual, confirmed by a round trip on the same channel',
      retry: 'basic.nack with requeue: delivered again at once (no delay)',
      review: 'basic.reject without requeue: dead-lettered',
      dedupe: 'none (every publish is a message)',
      compensation: 'none: RabbitMQ has no compensating state',
    },
  };
}
