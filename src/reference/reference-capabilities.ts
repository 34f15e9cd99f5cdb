import type { Capabilities } from '../port/adapter.js';

/**
 * The reference design keeps every piece of evidence, its saga log in its own
 * store, and leaves taking back dead holders' jobs to the coordinator (and to
 * every claim); its leases run on the caller's clock (SQLite) or the server's (PostgreSQL).
 */
export function referenceCapabilities(clock: Capabilities['clock']): Capabilities {
  return {
    evidence: { history: true, refusals: true, epoch: true, holder: true, digest: true, review: true, 'retry-policy': true, renewals: true },
    fencing: true,
    sagaStore: 'in-queue',
    takeover: 'coordinator',
    compensation: true,
    clock,
  };
}
