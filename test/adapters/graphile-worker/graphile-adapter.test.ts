import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseUrl, parseLocator } from '../../../src/adapters/graphile-worker/locator.js';
import { PgUnreachableError, withPgClient } from '../../../src/adapters/pg/connection.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { UsageError } from '../../../src/kernel/errors.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { Provisioned, QueueConnection } from '../../../src/port/adapter.js';
import type { DeliveryHandler, WorkOptions } from '../../../src/port/delivery.js';
import { type QueueOptionValue, resolveQueueOptions } from '../../../src/port/queue-options.js';
import { SEED_RETRY_DELAY } from '../../../src/port/retry-delay.js';
import { queueImpl } from '../../../src/queues/registry.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * The graphile-worker adapter on the real server, in this process: a database
 * per drill, made and dropped; graphile's addJob in its default replace mode
 * (a second job beside a locked one) and in unsafe_dedupe; no takeover hooks
 * unless release_dead_locks; a drill's migration that never reaches another
 * drill's worker; the contract's checks.
 */

const adapter = queueImpl('graphile-worker');
const DIGEST = 'c0ffee'.padEnd(64, '0');

async function databaseExists(name: string): Promise<boolean> {
  return withPgClient(PG_URL, async (client) => ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0);
}

/** Polls `check` until it holds, or fails after `ms` naming what it waited for. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe.skipIf(skipWithoutPg('the graphile-worker adapter on PostgreSQL (test/adapters/graphile-worker)'))('graphile-worker on PostgreSQL', () => {
  async function provision(options: Record<string, QueueOptionValue> = {}, pgUrl = PG_URL): Promise<Provisioned> {
    const run = tempRunDir('gw');
    cleanup.push(run.remove);
    const made = await adapter.provision({
      runDir: run.dir,
      runId: `test-${randomUUID()}`,
      servers: { pgUrl },
      options: resolveQueueOptions(adapter.name, adapter.options, options),
    });
    const { database } = parseLocator(made.locator);
    cleanup.push(async () => {
      await made.teardown({ keep: false });
      expect(await databaseExists(database)).toBe(false);
    });
    return made;
  }

  async function connected(options: Record<string, QueueOptionValue> = {}): Promise<QueueConnection> {
    const made = await provision(options);
    // As the harness connects: the server's own URL, the drill's database from the locator.
    const queue = await adapter.connect(made.locator, {
      clock: systemClock(),
      random: seededRandom(1),
      leaseMs: 300,
      skewMarginMs: 100,
      retryDelay: SEED_RETRY_DELAY,
      servers: { pgUrl: PG_URL },
      queueOptions: resolveQueueOptions(adapter.name, adapter.options, options),
    });
    cleanup.push(() => queue.close());
    return queue;
  }

  /** A worker hosted by the adapter, each job held until `release()`; stopped at the test's end. */
  function heldWorker(queue: QueueConnection, maxJobs: number): { claimed: string[]; release(): void; done: Promise<{ processed: number }> } {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const claimed: string[] = [];
    const stop = new AbortController();
    const handler: DeliveryHandler = async (delivery) => {
      claimed.push(delivery.jobId);
      await held;
      return { kind: 'done', digest: DIGEST };
    };
    const options: WorkOptions = {
      workerId: 'w1',
      stop: stop.signal,
      pollMs: 50,
      exitWhenDrained: false,
      maxJobs,
      maxAttemptMs: 60_000,
      log: () => {},
    };
    const done = queue.work(handler, options);
    cleanup.push(async () => {
      release();
      stop.abort();
      await done;
    });
    return { claimed, release, done };
  }

  it('provisions a database of its own with graphile migrated in, named only by the locator, and drops it at teardown (unless kept)', async () => {
    const withPassword = new URL(PG_URL);
    // Under trust auth the server never asks for it; it must never reach the report either way.
    if (withPassword.password === '') withPassword.password = 'drill-secret';
    const made = await provision({}, withPassword.href);
    const { database, schema } = parseLocator(made.locator);
    expect(made.locator).toBe(database);
    expect(schema).toBe('graphile_worker');
    expect(made.locator).not.toContain(withPassword.password);
    expect(made.where).not.toContain(withPassword.password);
    expect(made.where).toMatch(new RegExp(`:\\*\\*\\*@.*/${database} schema graphile_worker$`));
    expect(made.env.QD_PG_URL).toBe(withPassword.href);
    const migrated = await withPgClient(databaseUrl(PG_URL, database), (client) => client.query('SELECT id FROM graphile_worker.migrations'));
    expect(migrated.rowCount).toBeGreaterThan(0);

    const kept = await provision();
    await kept.teardown({ keep: true });
    expect(await databaseExists(kept.locator)).toBe(true);
  });

  it('refuses a run id whose database is already there, and leaves that database alone', async () => {
    const run = tempRunDir('gw');
    cleanup.push(run.remove);
    const request = { runDir: run.dir, runId: `test-${randomUUID()}`, servers: { pgUrl: PG_URL } };
    const made = await adapter.provision(request);
    cleanup.push(() => made.teardown({ keep: false }));
    await expect(adapter.provision(request)).rejects.toThrow(/already exists; a drill's queue is never reused/);
    expect(await databaseExists(made.locator)).toBe(true);
  });

  it('connects an observer by the locator alone (the server URL from its flags); a missing database or a bad locator is one line', async () => {
    const options = {
      clock: systemClock(),
      random: seededRandom(1),
      leaseMs: 300,
      skewMarginMs: 100,
      retryDelay: SEED_RETRY_DELAY,
      servers: { pgUrl: PG_URL },
    };
    await expect(adapter.connect('qd_gw_not_there', options)).rejects.toThrow(PgUnreachableError);
    await expect(adapter.connect('qd_gw_not_there', options)).rejects.toThrow(/qd_gw_not_there/);
    await expect(adapter.connect('Not;A Locator', options)).rejects.toThrow(UsageError);
  });

  it('tells a created job from a deduplicated one (replace on a waiting job: the same id), and records the creation in its history', async () => {
    const queue = await connected();
    const request = { key: 'k-1', action: 'sleep', payload: '{"ms":1}', maxAttempts: 3 };
    const first = await queue.enqueue(request);
    const again = await queue.enqueue(request);
    expect(first.outcome).toBe('created');
    expect(again).toEqual({ outcome: 'deduplicated', jobId: first.jobId });
    const { jobs, history } = await queue.snapshot();
    expect(jobs).toEqual([
      expect.objectContaining({ id: first.jobId, key: 'k-1', action: 'sleep', payload: '{"ms":1}', status: 'pending', maxAttempts: 3 }),
    ]);
    expect(history).toEqual([expect.objectContaining({ jobId: first.jobId, from: null, to: 'pending', actor: 'producer' })]);
  });

  it("in graphile's default replace mode, the key enqueued while its job is locked makes a second job, which runs too", async () => {
    const queue = await connected();
    expect(queue.takeover).toBeUndefined();
    const request = { key: 'k-1', action: 'sleep', payload: '{"ms":1}', maxAttempts: 3 };
    const first = await queue.enqueue(request);
    const worker = heldWorker(queue, 2);
    await until('the first job to be claimed', () => worker.claimed.includes(first.jobId));

    const second = await queue.enqueue(request);
    expect(second.outcome).toBe('created');
    expect(second.jobId).not.toBe(first.jobId);
    const { jobs } = await queue.snapshot();
    expect(jobs).toEqual([
      // Its lock ends at graphile's 4-hour sweep: nothing else frees it.
      expect.objectContaining({ id: first.jobId, key: 'k-1', status: 'running', holder: 'w1', leaseUntil: expect.any(String) }),
      expect.objectContaining({ id: second.jobId, key: 'k-1', status: 'pending' }),
    ]);
    const running = jobs[0];
    expect(Date.parse(running?.leaseUntil ?? '') - Date.now()).toBeGreaterThan(3 * 60 * 60 * 1000);

    worker.release();
    expect(await worker.done).toEqual({ processed: 2 });
    expect((await queue.snapshot()).jobs.map((j) => [j.id, j.status])).toEqual([
      [first.jobId, 'done'],
      [second.jobId, 'done'],
    ]);
  });

  it('with job_key_mode unsafe_dedupe, the key enqueued while its job is locked is that job; release_dead_locks offers the takeover hooks', async () => {
    const queue = await connected({ job_key_mode: 'unsafe_dedupe', release_dead_locks: true });
    expect(queue.takeover).toBeDefined();
    const request = { key: 'k-1', action: 'sleep', payload: '{"ms":1}', maxAttempts: 3 };
    const first = await queue.enqueue(request);
    const worker = heldWorker(queue, 1);
    await until('the first job to be claimed', () => worker.claimed.includes(first.jobId));
    expect(await queue.enqueue(request)).toEqual({ outcome: 'deduplicated', jobId: first.jobId });
    expect((await queue.snapshot()).jobs.map((j) => [j.id, j.status])).toEqual([[first.jobId, 'running']]);
    worker.release();
    expect(await worker.done).toEqual({ processed: 1 });
  });

  it("one drill's migration never reaches another drill's worker (graphile's NOTIFY is database-wide, each drill has its own)", async () => {
    const queue = await connected();
    const first = await queue.enqueue({ key: 'k-1', action: 'sleep', payload: '{}', maxAttempts: 1 });
    const worker = heldWorker(queue, 2);
    worker.release();
    await until('the worker to take its first job', () => worker.claimed.includes(first.jobId));
    const exitCode = process.exitCode;
    try {
      await provision();
      const second = await queue.enqueue({ key: 'k-2', action: 'sleep', payload: '{}', maxAttempts: 1 });
      // A worker that heard the other drill's breaking migration would have shut down (exit code 57) before taking this one.
      expect(await worker.done).toEqual({ processed: 2 });
      expect(worker.claimed).toEqual([first.jobId, second.jobId]);
      expect(process.exitCode).not.toBe(57);
    } finally {
      process.exitCode = exitCode;
    }
  });

  it('the contract: dedupe passes; the checks that need a manual claim, or fencing, are not judged, each with its reason', {
    timeout: 60_000,
  }, async () => {
    const results = await runContract(adapter, { servers: { pgUrl: PG_URL } });
    expect(results.map((r) => [r.check, r.status])).toEqual([
      ['enqueue-dedupe', 'passed'],
      ['single-claim', 'not_judged'],
      ['stale-write-refused', 'not_judged'],
      ['expired-lease-taken-back', 'not_judged'],
      ['attempts-bounded', 'not_judged'],
      ['review-sticky', 'not_judged'],
    ]);
    const reasons = Object.fromEntries(results.map((r) => [r.check, r.detail]));
    expect(reasons['stale-write-refused']).toBe(adapter.capabilities.fencing);
    expect(reasons['single-claim']).toBe('graphile-worker offers no manual claim and settle');
  });
});
