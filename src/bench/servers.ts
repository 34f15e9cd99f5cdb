import { assertRedisReachable, resolveRedisUrl } from '../adapters/bullmq/redis.js';
import { assertPgReachable, resolvePgUrl } from '../adapters/pg/connection.js';

/** Which servers answered: for each, null when it did, else why not (one line, password hidden). */
export interface ServerCheck {
  postgres: string | null;
  redis: string | null;
}

/** Asks PostgreSQL (QD_PG_URL, else the local default) and Redis (QD_REDIS_URL, else the local default) whether they answer. */
export async function checkServers(): Promise<ServerCheck> {
  const why = async (check: () => Promise<void>) => {
    try {
      await check();
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  const [postgres, redis] = await Promise.all([why(() => assertPgReachable(resolvePgUrl())), why(() => assertRedisReachable(resolveRedisUrl()))]);
  return { postgres, redis };
}
