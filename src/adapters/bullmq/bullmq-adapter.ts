import { createRequire } from 'node:module';
import path from 'node:path';
import type { QueueAdapter } from '../../port/adapter.js';
import { BULLMQ_CAPABILITIES } from './capabilities.js';
import { fitBullmq } from './fit.js';

/** The environment variable the drill's processes find Redis in (never their command line: a URL may carry a password). */
const URL_ENV = 'QD_REDIS_URL';

/*
 * BullMQ and ioredis are loaded only when this queue is used: every command
 * loads the registry, and a process drilling another queue should not pay
 * their start-up time (seconds on a loaded 2-core machine).
 */
const redisModule = () => import('./redis.js');
const provisionModule = () => import('./provision.js');
const connectionModule = () => import('./connection.js');

/** The installed BullMQ's own version, read from its package. */
function bullmqVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (require('bullmq/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * BullMQ 5 on Redis: its own Worker (fetch loop, lock renewal, stalled-job
 * checker) runs the drill's handler; the job id is the idempotency key; the
 * failed set is review. Each drill gets its own key prefix, deleted after the
 * run unless kept; the server is --redis-url, else QD_REDIS_URL, else the
 * scenario's redis_url, else redis://127.0.0.1:6379.
 */
export const bullmqAdapter: QueueAdapter = {
  name: 'bullmq',
  description: "BullMQ's own Worker on Redis: a key prefix per drill, lock tokens, the stalled checker takes dead workers' jobs back",
  // Read when asked (a report, `queues`), not when the registry loads: every drill process loads it.
  get version() {
    return `bullmq ${bullmqVersion()}`;
  },
  capabilities: BULLMQ_CAPABILITIES,
  soundness: 'observed',
  locatorKind: 'name',
  needs: ['redisUrl'],
  async restartServer(servers) {
    const { resolveRedisUrl } = await redisModule();
    const { restartRedis } = await import('./restart-redis.js');
    return restartRedis(resolveRedisUrl(servers.redisUrl));
  },
  // A job's complete is the moveToFinished script with its returnvalue (a fail's carries failedReason).
  wireRequests: { complete: { command: 'moveToFinished', within: 'returnvalue' } },
  scriptNames: async () => (await import('./script-names.js')).bullmqScriptNames(),
  async preflight(servers) {
    const { assertRedisReachable, resolveRedisUrl } = await redisModule();
    await assertRedisReachable(resolveRedisUrl(servers.redisUrl));
  },
  async provision(request) {
    const { assertRedisReachable, maskRedisUrl, openRedis, resolveRedisUrl } = await redisModule();
    const { deletePrefix, prefixFor, QUEUE_NAME } = await provisionModule();
    const { SAGA_FILE_ENV, sagaFileKey } = await connectionModule();
    const { holdOwnerKeys, writeOwnerKeys } = await import('./owner-keys.js');
    const { ownerMarkHere } = await import('../leftovers/owner-mark.js');
    const url = resolveRedisUrl(request.servers.redisUrl);
    await assertRedisReachable(url);
    const prefix = prefixFor(request.runId);
    const sagaFile = path.join(request.runDir, 'bullmq-saga.sqlite');
    // Marked as this drill's with its first key, so `queue-drill clean` takes the prefix if this process dies before its teardown.
    const owner = ownerMarkHere('bullmq', request.runDir);
    const client = openRedis(url);
    try {
      await writeOwnerKeys(client, prefix, owner, { [sagaFileKey(prefix)]: sagaFile });
    } finally {
      client.disconnect();
    }
    const mark = holdOwnerKeys(url, prefix, owner);
    return {
      locator: prefix,
      env: { [URL_ENV]: url, [SAGA_FILE_ENV]: sagaFile },
      where: `${maskRedisUrl(url)} prefix ${prefix} (queue ${QUEUE_NAME})`,
      teardown: async ({ keep }) => {
        await mark.end({ keep });
        if (!keep) await deletePrefix(url, prefix);
      },
    };
  },
  connect: async (locator, options) => (await connectionModule()).connectBullmq(locator, options),
  fit: (demands) => fitBullmq(demands),
};
