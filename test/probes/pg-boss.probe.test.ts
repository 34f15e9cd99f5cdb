import { randomUUID } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_URL, skipWithoutPg } from '../helpers/postgres.js';

/*
 * Probes of pg-boss 10.4 alone (its public API, no queue-drill code): what
 * the findings printed about pg-boss rest on. Two PgBoss instances on one
 * fresh schema stand for two workers; neither supervises, so the test runs
 * maintenance itself (`boss.maintain()`, public) when it wants an expired job
 * taken back. The SQL behind each fact is in node_modules/pg-boss/src/plans.js
 * (see docs/probes.md).
 */

const QUEUE = 'probe';

/** What complete() and fail() answer at run time (the typings say void): plans.js counts the rows its statement changed. */
interface CommandResult {
  jobs: string[];
  requested: number;
  affected: number;
}

/** Polls `check` until it holds, or fails after `ms` naming what it waited for. */
async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A fresh pg-boss schema and the instances started on it, all stopped and the schema dropped by `close`. */
interface Namespace {
  boss(): Promise<PgBoss>;
  errors: Error[];
  close(): Promise<void>;
}

function namespace(): Namespace {
  const schema = `probe_pgboss_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const started: PgBoss[] = [];
  const errors: Error[] = [];
  return {
    errors,
    async boss() {
      // supervise: false, schedule: false: no timers of its own; the probe runs maintenance when it wants it.
      const boss = new PgBoss({ connectionString: PG_URL, schema, supervise: false, schedule: false, max: 2 });
      boss.on('error', (error) => errors.push(error));
      started.push(boss);
      await boss.start();
      return boss;
    },
    async close() {
      for (const boss of started.reverse()) await boss.stop({ graceful: false, wait: true });
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Sends one job, lets worker A fetch it, lets it expire and be taken back by maintenance, and lets worker B fetch it again. */
async function takenOverJob(a: PgBoss, b: PgBoss): Promise<string> {
  const id = await a.send(QUEUE, { n: 1 });
  if (id === null) throw new Error('send() returned no id');
  const [fetchedByA] = await a.fetch(QUEUE);
  expect(fetchedByA?.id).toBe(id);
  expect(await b.fetch(QUEUE)).toEqual([]); // while A holds it, nobody else gets it
  // expireInSeconds 1: once started_on + 1 s is past, maintenance (failJobsByTimeout) moves it back to retry.
  await until('maintenance to move the expired job back to retry', async () => {
    await a.maintain();
    return (await a.getJobById(QUEUE, id))?.state === 'retry';
  });
  const [fetchedByB] = await b.fetch(QUEUE);
  expect(fetchedByB?.id).toBe(id);
  expect(await b.getJobById(QUEUE, id)).toMatchObject({ state: 'active', retryCount: 1 });
  return id;
}

describe.skipIf(skipWithoutPg('the pg-boss probes'))('pg-boss 10.4 alone', () => {
  let ns: Namespace | undefined;
  afterEach(async () => {
    await ns?.close();
    expect(ns?.errors ?? []).toEqual([]);
    ns = undefined;
  });

  it("pg-boss applies a stale holder's complete after its job expired and was fetched again", async () => {
    ns = namespace();
    const a = await ns.boss();
    const b = await ns.boss();
    await a.createQueue(QUEUE, { name: QUEUE, retryLimit: 3, retryDelay: 0, expireInSeconds: 1 });
    const id = await takenOverJob(a, b);

    // A wakes up and completes the job it no longer holds: complete() matches by id and state = 'active' only.
    const late = (await a.complete(QUEUE, id, { by: 'A' })) as unknown as CommandResult;
    expect(late).toEqual({ jobs: [id], requested: 1, affected: 1 });
    expect(await b.getJobById(QUEUE, id)).toMatchObject({ state: 'completed', retryCount: 1, output: { by: 'A' } });

    // B, still working, finishes: its complete matches nothing now, and nothing says so but the count.
    const own = (await b.complete(QUEUE, id, { by: 'B' })) as unknown as CommandResult;
    expect(own.affected).toBe(0);
    expect(await b.getJobById(QUEUE, id)).toMatchObject({ state: 'completed', output: { by: 'A' } });
  });

  it("pg-boss applies a stale holder's fail while another worker runs the job, and a third fetch gets it", async () => {
    ns = namespace();
    const a = await ns.boss();
    const b = await ns.boss();
    const c = await ns.boss();
    await a.createQueue(QUEUE, { name: QUEUE, retryLimit: 3, retryDelay: 0, expireInSeconds: 1 });
    const id = await takenOverJob(a, b);

    // A's late fail: matched by id and state < 'completed', so it takes B's active job back (retry_count 1 < retry_limit 3).
    const late = (await a.fail(QUEUE, id, { by: 'A' })) as unknown as CommandResult;
    expect(late).toEqual({ jobs: [id], requested: 1, affected: 1 });
    expect(await b.getJobById(QUEUE, id)).toMatchObject({ state: 'retry', retryCount: 1, output: { by: 'A' } });

    // B has not finished, yet a third worker fetches the same job: two holders run it at once.
    const [fetchedByC] = await c.fetch(QUEUE);
    expect(fetchedByC?.id).toBe(id);
    expect(await c.getJobById(QUEUE, id)).toMatchObject({ state: 'active', retryCount: 2 });
  });

  it("pg-boss applies a stale holder's fail to a job maintenance already sent back to retry: retry → retry, rescheduled", async () => {
    ns = namespace();
    const a = await ns.boss();
    await a.createQueue(QUEUE, { name: QUEUE, retryLimit: 3, retryDelay: 30, expireInSeconds: 1 });
    const id = await a.send(QUEUE, { n: 1 });
    if (id === null) throw new Error('send() returned no id');
    const [fetched] = await a.fetch(QUEUE);
    expect(fetched?.id).toBe(id);
    await until('maintenance to move the expired job back to retry', async () => {
      await a.maintain();
      return (await a.getJobById(QUEUE, id))?.state === 'retry';
    });
    const expired = await a.getJobById(QUEUE, id);
    // The holder, late (as pg-boss's own work() does once a handler outlives expireIn), fails the job nobody holds:
    // fail matches any state before completed, so it is applied, and the waiting job is rescheduled under the stale write.
    const late = (await a.fail(QUEUE, id, { by: 'stale A' })) as unknown as CommandResult;
    expect(late).toEqual({ jobs: [id], requested: 1, affected: 1 });
    const after = await a.getJobById(QUEUE, id);
    expect(after).toMatchObject({ state: 'retry', retryCount: expired!.retryCount, output: { by: 'stale A' } });
    expect(after!.startAfter.getTime()).toBeGreaterThan(expired!.startAfter.getTime());
  });
});
