import type { Capabilities } from '../port/adapter.js';

/** The reference design keeps every piece of evidence, its saga log in its own store, and leaves taking back dead holders' jobs to the coordinator (and to every claim). */
export const REFERENCE_CAPABILITIES: Capabilities = {
  evidence: { history: true, refusals: true, epoch: true, holder: true, digest: true, review: true },
  sagaStore: 'in-queue',
  takeover: 'coordinator',
};
