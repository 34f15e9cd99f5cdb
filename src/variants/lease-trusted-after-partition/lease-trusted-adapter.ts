import type { QueueAdapter } from '../../port/adapter.js';
import { connectPgStore, postgresAdapter } from '../../reference/postgres/postgres-adapter.js';

/**
 * The reference queue on PostgreSQL whose lease holders' renewals and
 * completes trust the lease they once had (./lease-trusted-store.ts): caught
 * when a worker partitioned from the server past its lease comes back while
 * the next holder is mid-job.
 */
export const leaseTrustedAfterPartition: QueueAdapter = {
  ...postgresAdapter,
  name: 'lease-trusted-after-partition',
  description:
    'the reference on PostgreSQL whose renewal and complete check only that the job still runs, not that it is still ' +
    "the writer's: a worker back from a partition writes over the next holder",
  soundness: 'broken',
  breaks: ['single-holder', 'done-is-verified'],
  connect: (locator, options) =>
    connectPgStore(locator, options, async (location, storeOptions) => {
      const { LeaseTrustedStore } = await import('./lease-trusted-store.js');
      return new LeaseTrustedStore(location, storeOptions);
    }),
};
