import type { Redis } from 'ioredis';
import { LEASE_MS, renewWhileRunning } from '../leftovers/lease.js';
import { keptMark, type OwnerMark } from '../leftovers/owner-mark.js';
import { openRedis } from './redis.js';

/*
 * A drill's owner mark on Redis (../leftovers/owner-mark.ts): two keys under
 * its prefix, so the prefix's deletion takes them with the rest. The mark
 * (JSON, no expiry) says who made the prefix; the lease, a key the server
 * expires LEASE_MS after its last renewal, says whether that drill renewed it
 * lately, by the server's clock.
 */

/** The key holding a prefix's owner mark. */
export function ownerKey(prefix: string): string {
  return `${prefix}:qd-owner`;
}

/** The key whose presence is a prefix's live lease. */
export function leaseKey(prefix: string): string {
  return `${prefix}:qd-lease`;
}

/** A connection for the mark's few writes: it fails within seconds when the server is gone, never waits on a reconnect. */
export function briefRedis(url: string): Redis {
  return openRedis(url, { connectTimeout: 3_000, maxRetriesPerRequest: 1, retryStrategy: () => null });
}

/** Marks `prefix` as `owner`'s and starts its lease, in one MULTI with `more` (the prefix's first keys), before any process of the drill starts. */
export async function writeOwnerKeys(client: Redis, prefix: string, owner: OwnerMark, more: Record<string, string> = {}): Promise<void> {
  let multi = client.multi().set(ownerKey(prefix), JSON.stringify(owner)).set(leaseKey(prefix), '1', 'PX', LEASE_MS);
  for (const [key, value] of Object.entries(more)) multi = multi.set(key, value);
  const replies = (await multi.exec()) ?? [];
  const failed = replies.find(([error]) => error !== null);
  if (failed) throw failed[0];
}

/**
 * A drill's lease renewed while it runs; `end` stops renewing, and with
 * `keep` marks the prefix kept (clean then leaves it: a person asked for it).
 */
export function holdOwnerKeys(url: string, prefix: string, owner: OwnerMark): { end(options: { keep: boolean }): Promise<void> } {
  const withClient = async (work: (client: Redis) => Promise<unknown>) => {
    const client = briefRedis(url);
    try {
      await work(client);
    } finally {
      client.disconnect();
    }
  };
  const renewal = renewWhileRunning(() => withClient((client) => client.set(leaseKey(prefix), '1', 'PX', LEASE_MS)));
  return {
    async end({ keep }) {
      await renewal.stop();
      if (keep) await withClient((client) => client.set(ownerKey(prefix), JSON.stringify(keptMark(owner))));
    },
  };
}
