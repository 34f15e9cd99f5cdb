import { assertRedisReachable, openRedis, resolveRedisUrl } from '../../src/adapters/bullmq/redis.js';

/*
 * The Redis the tests use ($QD_REDIS_URL, else the local default), and
 * whether it answered. When it did not, each gate of the tests that need it
 * skips them and prints one line saying which and why, unless Redis is
 * required: then the import fails, and every test file that needs the server
 * with it. It is required with QD_REQUIRE_REDIS=1 (.ci/run sets it), and on a
 * CI service (CI set) unless QD_REQUIRE_REDIS=0: a skip there would only hide
 * a broken setup.
 */

export const REDIS_URL = resolveRedisUrl();

/** Whether these tests must have Redis (see above). */
export function redisRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const require = env.QD_REQUIRE_REDIS ?? '';
  if (require !== '') return require === '1';
  const ci = (env.CI ?? '').toLowerCase();
  return ci !== '' && ci !== '0' && ci !== 'false';
}

/** Why Redis is not available, once it did not answer. */
let unreachable = '';

async function redisReachable(url: string): Promise<boolean> {
  try {
    await assertRedisReachable(url);
    return true;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (redisRequired()) {
      throw new Error(`Redis is required here (QD_REQUIRE_REDIS=1, or CI set) and did not answer: ${why}`, { cause: error });
    }
    unreachable = why;
    return false;
  }
}

/** Whether Redis answered at REDIS_URL. Gate tests with skipWithoutRedis, which says so when it skips. */
export const REDIS_AVAILABLE: boolean = await redisReachable(REDIS_URL);

/**
 * The gate of tests that need Redis: `describe.skipIf(skipWithoutRedis('the BullMQ adapter'))`.
 * True (skip them) when the server did not answer, and then prints one line naming them and why.
 */
export function skipWithoutRedis(what: string): boolean {
  if (REDIS_AVAILABLE) return false;
  console.warn(`Redis not reachable, so skipped: ${what}. ${unreachable} (set QD_REQUIRE_REDIS=1 to fail instead)`);
  return true;
}

/** Every key matching `pattern` (SCAN, never KEYS): what a test checks is gone after it. */
export async function keysMatching(pattern: string): Promise<string[]> {
  const client = openRedis(REDIS_URL);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  } finally {
    client.disconnect();
  }
}
