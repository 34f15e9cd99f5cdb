import type { Leftover } from '../leftovers/leftover.js';
import { parseOwnerMark } from '../leftovers/owner-mark.js';
import { briefRedis, leaseKey, ownerKey } from './owner-keys.js';
import { deletePrefix } from './provision.js';
import { assertRedisReachable, maskRedisUrl } from './redis.js';

/** A drill's key prefix as prefixFor makes it (./provision.ts): `qd-`, lowercase letters, digits and dashes, no colon. */
const DRILL_PREFIX = /^qd-[a-z0-9-]+$/;

/** How many keys of each drill prefix the server holds, by SCAN (never KEYS on a shared server). */
async function keysByPrefix(url: string): Promise<Map<string, number>> {
  const client = briefRedis(url);
  try {
    const counts = new Map<string, number>();
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', 'qd-*:*', 'COUNT', 1000);
      for (const key of batch) {
        const prefix = key.slice(0, key.indexOf(':'));
        if (DRILL_PREFIX.test(prefix)) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
      }
      cursor = next;
    } while (cursor !== '0');
    return counts;
  } finally {
    client.disconnect();
  }
}

/** Every key prefix on the server named as a BullMQ drill's (qd-), with its mark and lease. */
export async function listDrillPrefixes(url: string): Promise<Leftover[]> {
  await assertRedisReachable(url);
  const counts = await keysByPrefix(url);
  const prefixes = [...counts.keys()].sort();
  if (prefixes.length === 0) return [];
  const client = briefRedis(url);
  try {
    const marks = await client.mget(...prefixes.map(ownerKey));
    const leases = await Promise.all(prefixes.map((prefix) => client.exists(leaseKey(prefix))));
    return prefixes.map((prefix, i) => {
      const mark = parseOwnerMark(marks[i]);
      return {
        kind: 'key prefix',
        name: prefix,
        server: maskRedisUrl(url),
        mark,
        // The lease key expires with its lease: a marked prefix without one has lapsed.
        leaseLive: mark === null ? null : leases[i] === 1,
        size: `${counts.get(prefix)} keys`,
        remove: async () => {
          await deletePrefix(url, prefix);
        },
      };
    });
  } finally {
    client.disconnect();
  }
}
