import { Redis, type RedisOptions } from 'ioredis';
import { InputError } from '../../kernel/errors.js';
import { LOCAL_SERVERS } from '../../port/servers.js';
import { describeCause } from '../pg/connection.js';

/** Where the drills look for Redis when nobody says: the local server. */
export const DEFAULT_REDIS_URL = LOCAL_SERVERS.redisUrl;

/** How long a reachability check waits for an answer. */
const CONNECT_TIMEOUT_MS = 3_000;

/** The server to use: the one given, else $QD_REDIS_URL, else the local default. An empty value counts as not given. */
export function resolveRedisUrl(explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  const fromEnv = process.env.QD_REDIS_URL;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_REDIS_URL;
}

/** A URL fit for a log or a report: its password hidden. */
export function maskRedisUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

/** Redis did not answer: bad input to the drill, exit 2, one line. */
export class RedisUnreachableError extends InputError {
  readonly code = 'QD_REDIS_UNREACHABLE';
  constructor(url: string, cause: unknown) {
    super(`cannot connect to Redis at ${maskRedisUrl(url)}: ${describeCause(cause, url, maskRedisUrl)}`, { cause });
  }
}

/**
 * A connection as BullMQ's workers need it: `maxRetriesPerRequest: null`, so
 * a blocking command is never cut short by ioredis's own retry count.
 */
export function openRedis(url: string, extra: RedisOptions = {}): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null, ...extra });
  // Errors reach the command that meets them; without a listener ioredis prints every reconnect attempt.
  client.on('error', () => {});
  return client;
}

/** Throws RedisUnreachableError unless the server at `url` answers PING within the timeout. */
export async function assertRedisReachable(url: string): Promise<void> {
  const client = openRedis(url, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new RedisUnreachableError(url, error);
  } finally {
    client.disconnect();
  }
}
