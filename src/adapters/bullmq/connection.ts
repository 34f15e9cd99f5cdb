import { Queue } from 'bullmq';
import { systemClock } from '../../kernel/clock.js';
import type { ConnectOptions, EnqueueRequest, EnqueueResult, QueueConnection } from '../../port/adapter.js';
import { EnqueueError } from '../../port/adapter.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { readHistory } from './history.js';
import { humanOps } from './human.js';
import { jobIdFor, newJobData, parseJobData, type QueueKeys, queueKeys } from './job-data.js';
import { manualOps } from './manual.js';
import { QUEUE_NAME } from './provision.js';
import { openRedis, resolveRedisUrl } from './redis.js';
import { readJobs } from './snapshot.js';
import { runWorker } from './work-loop.js';

/** The environment variable naming the drill's saga file (beside the run); else the path provision left under the prefix. */
export const SAGA_FILE_ENV = 'QD_BULLMQ_SAGA_FILE';

/** The key under a drill's prefix holding its saga file's path, for a process told only the locator (the contract suite's). */
export function sagaFileKey(prefix: string): string {
  return `${prefix}:qd-saga-file`;
}

/**
 * Adds the job under its key as BullMQ's jobId: BullMQ's add script makes it
 * only if no hash of that id exists, atomically. Completed and failed jobs are
 * kept (removeOnComplete/removeOnFail false), so the key dedupes for the whole drill.
 */
async function enqueue(queue: Queue, request: EnqueueRequest, keys: QueueKeys): Promise<EnqueueResult> {
  const data = newJobData({ key: request.key, action: request.action, payload: request.payload, maxAttempts: request.maxAttempts });
  const jobId = jobIdFor(request.key);
  try {
    await queue.add(request.action, data, {
      jobId,
      attempts: request.maxAttempts,
      backoff: { type: 'drill' },
      removeOnComplete: false,
      removeOnFail: false,
    });
  } catch (error) {
    // The add script either ran or did not; a lost connection leaves it unknown.
    throw new EnqueueError(false, `BullMQ add failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const client = await queue.client;
  const stored = parseJobData((await client.hget(keys.job(jobId), 'data')) ?? undefined);
  return { outcome: stored.nonce === data.nonce ? 'created' : 'deduplicated', jobId };
}

/** One process's connection to a drill's BullMQ queue under prefix `locator`. */
export async function connectBullmq(locator: string, options: ConnectOptions): Promise<QueueConnection> {
  const url = resolveRedisUrl(options.servers?.redisUrl);
  const client = openRedis(url);
  const keys = queueKeys(locator, QUEUE_NAME);
  const sagaFile = process.env[SAGA_FILE_ENV] || (await client.get(sagaFileKey(locator)));
  if (!sagaFile) {
    client.disconnect();
    throw new Error(`no saga file for BullMQ queue ${locator}: provision sets ${SAGA_FILE_ENV}`);
  }
  const saga = FileSagaStore.open(sagaFile, systemClock());
  const queue = new Queue(QUEUE_NAME, { connection: client, prefix: locator });
  queue.on('error', () => {});
  const context = { prefix: locator, client, queue, keys, saga, leaseMs: options.leaseMs, retryDelay: options.retryDelay, random: options.random };
  const manual = manualOps(context);
  return {
    enqueue: (request) => enqueue(queue, request, keys),
    work: (handler, work) => runWorker(context, handler, work),
    async snapshot(snapshotOptions) {
      const [jobs, history] = await Promise.all([readJobs(client, keys), snapshotOptions?.history === false ? [] : readHistory(client, keys)]);
      return { jobs, history };
    },
    // The stream's last id moves with every move BullMQ makes; the lock keys' renewals do not count as progress.
    async progress() {
      const last = await client.xrevrange(keys.events, '+', '-', 'COUNT', 1);
      return last[0]?.[0] ?? 'empty';
    },
    saga,
    manual,
    human: humanOps(context),
    async close() {
      await manual.close();
      await queue.close().catch(() => undefined);
      client.disconnect();
      saga.close();
    },
  };
}
