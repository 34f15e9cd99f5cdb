import { randomUUID } from 'node:crypto';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL, skipWithoutRedis } from '../helpers/redis.js';

/*
 * Probes of BullMQ 5.81 alone (its public API, no queue-drill code): what the
 * findings printed about BullMQ rest on. A worker that "dies" is a worker in
 * manual mode (`getNextJob(token)`) that never extends its lock: exactly what
 * Redis sees of a SIGKILLed one. The stalled checker runs in another worker
 * with no processor (`startStalledCheckTimer()`, the manual-mode way), so no
 * worker takes a job unless the probe asks. Each probe has a prefix of its
 * own and deletes every key under it. The Lua behind each fact is in
 * node_modules/bullmq/dist/esm/commands/ (see docs/probes.md).
 */

const QUEUE = 'probe';
const STALL_LIMIT_REASON = 'job stalled more than allowable limit';

/** Polls `check` until it holds, or fails after `ms` naming what it waited for. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** ioredis options from the Redis URL (BullMQ owns and closes the connections it makes from options). */
function connection(): RedisOptions {
  const url = new URL(REDIS_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: Number(url.pathname.slice(1) || 0),
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/** A fresh prefix with its queue and workers; `close` closes them and deletes every key under the prefix. */
interface Namespace {
  queue: Queue;
  /** A worker with no processor: it fetches only when asked, and holds its lock only as long as lockDuration. */
  holder(lockDurationMs?: number): Worker;
  /** A worker with no processor that runs the stalled checker every 100 ms. */
  checker(maxStalledCount: number): Promise<Worker>;
  worker(processor: (job: Job) => Promise<unknown>, maxStalledCount: number): Worker;
  events(): Promise<string[]>;
  close(): Promise<void>;
}

function namespace(): Namespace {
  const prefix = `probe-${randomUUID()}`;
  const queue = new Queue(QUEUE, { connection: connection(), prefix });
  // A plain client (BullMQ's own is typed to the commands it uses) to read the event stream and delete the keys.
  const redis = new Redis(connection());
  const workers: Worker[] = [];
  const made = (worker: Worker) => {
    worker.on('error', () => {}); // a closing connection's errors; the assertions say what matters
    workers.push(worker);
    return worker;
  };
  return {
    queue,
    holder: (lockDuration = 500) => made(new Worker(QUEUE, null, { connection: connection(), prefix, lockDuration, autorun: false })),
    async checker(maxStalledCount) {
      const worker = made(new Worker(QUEUE, null, { connection: connection(), prefix, stalledInterval: 100, maxStalledCount, autorun: false }));
      await worker.startStalledCheckTimer();
      return worker;
    },
    worker: (processor, maxStalledCount) =>
      made(new Worker(QUEUE, processor, { connection: connection(), prefix, stalledInterval: 100, maxStalledCount })),
    async events() {
      const entries = await redis.xrange(queue.toKey('events'), '-', '+');
      return entries.map(([, fields]) => {
        const field = (name: string) => fields[fields.indexOf(name) + 1];
        return field('event') === 'failed' ? `failed: ${field('failedReason')}` : (field('event') ?? '?');
      });
    },
    async close() {
      for (const worker of workers.reverse()) await worker.close(true);
      await queue.close();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await redis.quit();
    },
  };
}

/** The job as Redis has it now. */
async function reread(queue: Queue, id: string): Promise<Job> {
  const job = await queue.getJob(id);
  if (job === undefined) throw new Error(`job ${id} is gone`);
  return job;
}

/** Takes the waiting job with a fresh token and lets its lock lapse, until the stalled checker has moved it back to wait. */
async function stallOnce(ns: Namespace, id: string, stallsBefore: number): Promise<void> {
  const taken = await ns.holder().getNextJob(randomUUID(), { block: false });
  expect(taken?.id).toBe(id);
  await until(`stall ${stallsBefore + 1} to be found`, async () => {
    const job = await reread(ns.queue, id);
    return job.stalledCounter === stallsBefore + 1 && (await job.getState()) === 'waiting';
  });
}

describe.skipIf(skipWithoutRedis('the BullMQ probes'))('BullMQ 5.81 alone', () => {
  let ns: Namespace | undefined;
  afterEach(async () => {
    await ns?.close();
    ns = undefined;
  });

  it("BullMQ's stalled checker moves a job whose holder stopped renewing its lock back to wait without using up an attempt", async () => {
    ns = namespace();
    const { id } = await ns.queue.add('j', {}, { attempts: 1 });
    if (id === undefined) throw new Error('add() gave no id');
    await ns.checker(1);

    const taken = await ns.holder().getNextJob(randomUUID(), { block: false });
    expect(taken).toMatchObject({ id, attemptsStarted: 1, attemptsMade: 0 });
    await until('the stalled checker to move the job back to wait', async () => (await ns!.queue.getJobState(id)) === 'waiting');
    expect(await reread(ns.queue, id)).toMatchObject({ attemptsStarted: 1, attemptsMade: 0, stalledCounter: 1 });

    // With attempts: 1 it runs again, and finishing it is its first attempt made.
    const token = randomUUID();
    const again = await ns.holder().getNextJob(token, { block: false });
    expect(again).toMatchObject({ id, attemptsStarted: 2, attemptsMade: 0 });
    await again!.moveToCompleted('done', token, false);
    expect(await reread(ns.queue, id)).toMatchObject({ attemptsStarted: 2, attemptsMade: 1, stalledCounter: 1, returnvalue: 'done' });
    expect(await ns.queue.getJobState(id)).toBe('completed');
  });

  it("BullMQ refuses a stale holder's late complete with a lock mismatch once another worker holds the job", async () => {
    ns = namespace();
    const { id } = await ns.queue.add('j', {});
    if (id === undefined) throw new Error('add() gave no id');
    await ns.checker(1);
    const staleToken = randomUUID();
    const stale = await ns.holder().getNextJob(staleToken, { block: false });
    await until('the stalled checker to move the job back to wait', async () => (await ns!.queue.getJobState(id)) === 'waiting');
    const freshToken = randomUUID();
    const fresh = await ns.holder(30_000).getNextJob(freshToken, { block: false });
    expect(fresh?.id).toBe(id);

    await expect(stale!.moveToCompleted('late', staleToken, false)).rejects.toThrow(`Lock mismatch for job ${id}. Cmd moveToFinished from active`);
    expect(await ns.queue.getJobState(id)).toBe('active');
    await fresh!.moveToCompleted('fresh', freshToken, false);
    expect(await reread(ns.queue, id)).toMatchObject({ returnvalue: 'fresh' });
  });

  it('BullMQ fails a job stalled twice with maxStalledCount 1 when a worker next takes it, without running the processor', async () => {
    ns = namespace();
    const { id } = await ns.queue.add('j', {}, { attempts: 5 });
    if (id === undefined) throw new Error('add() gave no id');
    await ns.checker(1);
    await stallOnce(ns, id, 0);
    await stallOnce(ns, id, 1);

    // moveStalledJobsToWait only marks it (hash field `defa`) and puts it back in wait, with a `stalled` event.
    expect(await ns.queue.getJobState(id)).toBe('waiting');
    expect(await reread(ns.queue, id)).toMatchObject({ stalledCounter: 2, attemptsStarted: 2, attemptsMade: 0, deferredFailure: STALL_LIMIT_REASON });

    // The next worker to take it fails it (UnrecoverableError, so its four attempts left do not matter); its processor never runs.
    const processed: string[] = [];
    ns.worker(async (job) => processed.push(job.id ?? '?'), 1);
    await until('a worker to take the job and fail it', async () => (await ns!.queue.getJobState(id)) === 'failed');
    expect(processed).toEqual([]);
    expect(await reread(ns.queue, id)).toMatchObject({ failedReason: STALL_LIMIT_REASON, attemptsStarted: 3, attemptsMade: 1, stalledCounter: 2 });
    // The event stream, in order ('drained' left out: it says when a worker found nothing left, not what happened to the job).
    // No 'retries-exhausted': moveToFinished adds it only when attemptsMade >= attempts (here 1 of 5).
    expect((await ns.events()).filter((event) => event !== 'drained')).toEqual([
      'added',
      'waiting',
      'active',
      'waiting',
      'stalled',
      'active',
      'waiting',
      'stalled',
      'active',
      `failed: ${STALL_LIMIT_REASON}`,
    ]);
  });
});
