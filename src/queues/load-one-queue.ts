import type { QueueImpl } from './sqlite-impl.js';

/*
 * A drill's child process (a worker, a producer, the coordinator) drills one
 * queue, and starts again at every restart: loading the whole registry made
 * every start evaluate every adapter's modules (graphile-worker's, the process
 * protocol's, the brokers') and Node's streams, net, http and crypto under
 * them, ~30 ms of a worker's ~115 ms. Here each queue the drill ships is
 * loaded alone when named; any other name (a broken variant, process:,
 * adapter:) goes to the whole registry, which knows them all. The registry
 * stays the one list `--queue` is checked against (a test holds the two to
 * the same names and implementations).
 */

/** Each shipped queue's names (the registry's name and aliases) and how to load it alone. */
export const SHIPPED_QUEUES: readonly { names: readonly string[]; load(): Promise<QueueImpl> }[] = [
  {
    names: ['reference', 'sqlite'],
    load: async () => {
      const { SQLITE_REFERENCE, sqliteImpl } = await import('./sqlite-impl.js');
      return sqliteImpl(SQLITE_REFERENCE);
    },
  },
  { names: ['postgres'], load: async () => (await import('./postgres-impl.js')).POSTGRES_REFERENCE },
  { names: ['bullmq'], load: async () => (await import('../adapters/bullmq/bullmq-adapter.js')).bullmqAdapter },
  { names: ['pg-boss'], load: async () => (await import('../adapters/pg-boss/pg-boss-adapter.js')).pgBossAdapter },
  { names: ['graphile-worker'], load: async () => (await import('../adapters/graphile-worker/graphile-adapter.js')).graphileAdapter },
  { names: ['rabbitmq'], load: async () => (await import('../adapters/rabbitmq/rabbitmq-adapter.js')).rabbitmqAdapter },
  { names: ['nats-jetstream'], load: async () => (await import('../adapters/nats-jetstream/nats-jetstream-adapter.js')).natsJetstreamAdapter },
];

/** The implementation called `name`, loading no other queue's code where it is one the drill ships. */
export async function loadOneQueue(name: string): Promise<QueueImpl> {
  const shipped = SHIPPED_QUEUES.find((queue) => queue.names.includes(name));
  if (shipped) return shipped.load();
  return (await import('./registry.js')).loadQueue(name);
}
