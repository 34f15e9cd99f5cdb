import { runIdName } from '../run-name.js';
import { openRedis } from './redis.js';

/** The one queue of a drill, under its run's prefix. */
export const QUEUE_NAME = 'drill';

/**
 * The key prefix of one drill's queue: `qd-`, the run id made readable and a
 * hash of the whole id (two ids that read the same once cleaned still differ).
 * No colon: BullMQ joins prefix, queue name and key with colons.
 */
export function prefixFor(runId: string): string {
  return runIdName(runId, 'qd-');
}

/** Every key under `prefix` (BullMQ's and the adapter's), by SCAN: never KEYS on a shared server. */
export async function keysUnder(url: string, prefix: string): Promise<string[]> {
  const client = openRedis(url);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  } finally {
    client.disconnect();
  }
}

/** Deletes every key under `prefix`; none is fine. */
export async function deletePrefix(url: string, prefix: string): Promise<number> {
  const keys = await keysUnder(url, prefix);
  if (keys.length === 0) return 0;
  const client = openRedis(url);
  try {
    let deleted = 0;
    for (let i = 0; i < keys.length; i += 500) deleted += await client.del(...keys.slice(i, i + 500));
    return deleted;
  } finally {
    client.disconnect();
  }
}
