import { createRequire } from 'node:module';
import type { QueueAdapter } from '../../port/adapter.js';
import { RABBITMQ_CAPABILITIES } from './capabilities.js';
import { fitRabbitmq, SHORTEST_LEASE_MS } from './fit.js';
import { RABBITMQ_OPTIONS } from './options.js';

/*
 * amqplib is loaded only when this queue is used: every command loads the
 * registry, and a process drilling another queue should not pay for it.
 */
const amqpModule = () => import('./amqp.js');

/** The installed amqplib's version, read from its package. */
function amqplibVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (require('amqplib/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * RabbitMQ through amqplib, as teams run it without a job library: a durable
 * work queue per drill (quorum, its x-delivery-limit the attempt bound),
 * consumers with manual acks and prefetch 1, a dead-letter queue as review,
 * and RabbitMQ's own redelivery of a dead consumer's messages as the
 * takeover. The server is --amqp-url, else QD_AMQP_URL, else the scenario's
 * amqp_url, else amqp://guest:guest@127.0.0.1:5672.
 */
export const rabbitmqAdapter: QueueAdapter = {
  name: 'rabbitmq',
  description: 'RabbitMQ with manual acks (amqplib): a quorum queue per drill, its delivery limit, a dead-letter queue as review',
  // Read when asked (a report, `queues`), not when the registry loads: every drill process loads it.
  get version() {
    return `amqplib ${amqplibVersion()}`;
  },
  options: RABBITMQ_OPTIONS,
  capabilities: RABBITMQ_CAPABILITIES,
  soundness: 'observed',
  locatorKind: 'name',
  needs: ['amqpUrl'],
  shortestLease: {
    ms: SHORTEST_LEASE_MS,
    why: 'RabbitMQ finds a frozen consumer by its heartbeat, whole seconds: it closes a connection silent for about two heartbeats of at least 1 s',
  },
  retryPolicyFor: () => ({ baseMs: 0, capMs: 0, jitterMs: 0 }),
  async restartServer(servers) {
    const { resolveAmqpUrl } = await amqpModule();
    const { restartRabbitmq } = await import('./restart-rabbitmq.js');
    return restartRabbitmq(resolveAmqpUrl(servers.amqpUrl));
  },
  async preflight(servers) {
    const { assertRabbitmqReachable, resolveAmqpUrl } = await amqpModule();
    await assertRabbitmqReachable(resolveAmqpUrl(servers.amqpUrl));
  },
  provision: async (request) => (await import('./provision.js')).provisionRabbitmq(request),
  connect: async (locator, options) => (await import('./connection.js')).connectRabbitmq(locator, options),
  fit: (demands) => fitRabbitmq(demands),
};
