import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { assertPgReachable, DEFAULT_PG_URL, maskUrl, PgUnreachableError, resolvePgUrl } from '../../../src/adapters/pg/connection.js';
import { assertSchemaName, quoteIdent } from '../../../src/adapters/pg/identifier.js';
import { PgSchemaMissingError } from '../../../src/adapters/pg/pool.js';
import { createSchema, dropSchema, schemaNameFor } from '../../../src/adapters/pg/provision.js';
import { EXIT, InputError } from '../../../src/kernel/errors.js';
import { isAllowedTransition, JOB_STATUSES, type JobStatus } from '../../../src/port/states.js';
import type { JobRow, Lease } from '../../../src/reference/job.js';
import type { LeaseStoreOptions } from '../../../src/reference/lease-store.js';
import { PgLeaseStore } from '../../../src/reference/postgres/pg-lease-store.js';
import { SCHEMA_SQL } from '../../../src/reference/postgres/schema.js';
import { type FreshSchema, freshSchema, PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { behaviourOptions, DIGEST, describeLeaseStore, type LeaseStoreFixture } from '../lease-store-behaviour.js';

/** A queue in a fresh schema, with as many connections (stores, each its own pool) as a test opens; all closed and the schema dropped by `close`. */
interface PgFixture extends LeaseStoreFixture {
  schema: string;
  store: PgLeaseStore;
  connect(options?: Partial<LeaseStoreOptions>): Promise<PgLeaseStore>;
  /** A plain connection to the schema that knows nothing of the store: a foreign writer. */
  raw(): Promise<pg.Client>;
}

async function pgFixture(label: string, options: LeaseStoreOptions): Promise<PgFixture> {
  const fresh: FreshSchema = await freshSchema(label);
  const stores: PgLeaseStore[] = [];
  const clients: pg.Client[] = [];
  const open = (extra: Partial<LeaseStoreOptions> = {}) => {
    const store = new PgLeaseStore({ url: PG_URL, schema: fresh.schema }, { ...options, ...extra });
    stores.push(store);
    return store;
  };
  return {
    schema: fresh.schema,
    store: open(),
    connect: async (extra) => open(extra),
    raw: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      clients.push(client);
      await client.connect();
      await client.query(`SET search_path TO ${quoteIdent(fresh.schema)}`);
      return client;
    },
    close: async () => {
      await Promise.all([...stores.map((s) => s.close()), ...clients.map((c) => c.end())]);
      await fresh.drop();
    },
  };
}

describe.skipIf(skipWithoutPg('the lease-store behaviour on PostgreSQL (test/reference/postgres/pg-lease-store.test.ts)'))(
  'PgLeaseStore on PostgreSQL',
  () => {
    describeLeaseStore('PgLeaseStore', (options) => pgFixture('behaviour', options));
  },
);

describe.skipIf(skipWithoutPg('the PostgreSQL-only tests of PgLeaseStore (test/reference/postgres/pg-lease-store.test.ts)'))(
  'PgLeaseStore, PostgreSQL only',
  () => {
    let fx: PgFixture | undefined;
    beforeEach(async () => {
      fx = await pgFixture('pg', behaviourOptions());
    });
    afterEach(async () => {
      await fx?.close();
      fx = undefined;
    });

    async function enqueueAll(store: PgLeaseStore, keys: string[], maxAttempts = 3): Promise<number[]> {
      const ids: number[] = [];
      for (const key of keys) ids.push((await store.enqueue({ key, action: 'charge', payloadJson: '{}', maxAttempts })).jobId);
      return ids;
    }

    /** Each store claims until it finds nothing ready, all at once; what each one got. */
    async function claimRace(stores: PgLeaseStore[]): Promise<JobRow[][]> {
      return Promise.all(
        stores.map(async (store, n) => {
          const mine: JobRow[] = [];
          for (let job = await store.claim(`w${n}`); job; job = await store.claim(`w${n}`)) mine.push(job);
          return mine;
        }),
      );
    }

    describe('concurrency across pools', () => {
      it('4 claimers racing over 40 jobs: every job claimed exactly once, none held by two; then again after every lease expired', async () => {
        const stores = await Promise.all([0, 1, 2, 3].map(() => fx!.connect()));
        const ids = await enqueueAll(
          fx!.store,
          Array.from({ length: 40 }, (_, i) => `job-${i}`),
        );

        const byClaimer = await claimRace(stores);
        const claimed = byClaimer.flat();
        expect(claimed).toHaveLength(40);
        expect(new Set(claimed.map((j) => j.id))).toEqual(new Set(ids));
        byClaimer.forEach((jobs, n) => {
          for (const job of jobs) expect(job).toMatchObject({ leased_by: `w${n}`, lease_fence: 1, attempts: 1, status: 'running' });
        });
        const rows = await fx!.store.jobs();
        const holder = new Map(claimed.map((j) => [j.id, j.leased_by]));
        for (const row of rows) expect(row.leased_by).toBe(holder.get(row.id));

        // Every lease expires at once; the claimers race to sweep and claim them again.
        for (const id of ids) await fx!.store.expireLease(id);
        const again = (await claimRace(stores)).flat();
        expect(again).toHaveLength(40);
        expect(new Set(again.map((j) => j.id))).toEqual(new Set(ids));
        for (const job of again) expect(job).toMatchObject({ lease_fence: 2, attempts: 2 });

        const events = await fx!.store.events();
        for (const id of ids) {
          const mine = events.filter((e) => e.job_id === id);
          expect(mine.filter((e) => e.to_status === 'running').map((e) => e.fence)).toEqual([1, 2]);
          expect(mine.filter((e) => e.from_status === 'running' && e.to_status === 'retry')).toHaveLength(1);
        }
        expect(await fx!.store.counts()).toMatchObject({ running: 40, pending: 0, retry: 0 });
      });

      it('4 enqueuers racing on the same 20 keys: one creation per key, one row per key, one id per key', async () => {
        const stores = await Promise.all([0, 1, 2, 3].map(() => fx!.connect()));
        const keys = Array.from({ length: 20 }, (_, i) => `key-${i}`);
        const results = await Promise.all(
          stores.flatMap((store, n) =>
            // Each producer in its own order, all its keys at once (up to its pool's size in flight).
            keys
              .map((_, i) => keys[(i + 5 * n) % keys.length]!)
              .map(async (key) => ({ key, ...(await store.enqueue({ key, action: 'charge', payloadJson: `{"by":${n}}`, maxAttempts: 3 })) })),
          ),
        );
        expect(results).toHaveLength(80);
        for (const key of keys) {
          const mine = results.filter((r) => r.key === key);
          expect(mine.filter((r) => r.created)).toHaveLength(1);
          expect(new Set(mine.map((r) => r.jobId)).size).toBe(1);
        }
        const rows = await fx!.store.jobs();
        expect(rows.map((r) => r.idempotency_key).sort()).toEqual([...keys].sort());
        expect((await fx!.store.events()).filter((e) => e.from_status === null)).toHaveLength(20);
      });

      it("a stale holder's complete racing a claim's sweep: exactly one of them wins, every time", async () => {
        const [holder, claimer] = await Promise.all([fx!.connect(), fx!.connect()]);
        for (let round = 0; round < 10; round++) {
          const [id] = await enqueueAll(fx!.store, [`race-${round}`]);
          const job = (await holder.claim('w1'))!;
          expect(job.id).toBe(id);
          await fx!.store.expireLease(id!);
          const lease: Lease = { jobId: id!, workerId: 'w1', fence: job.lease_fence };
          const [completed, taken] = await Promise.all([holder.complete(lease, DIGEST), claimer.claim('w2')]);
          const row = (await fx!.store.jobs()).find((j) => j.id === id)!;
          if (completed.ok) {
            expect(taken).toBeNull();
            expect(row).toMatchObject({ status: 'done', lease_fence: 1 });
          } else {
            expect(completed.current).toEqual({ status: 'running', leasedBy: 'w2', fence: 2 });
            expect(taken?.id).toBe(id);
            expect(row).toMatchObject({ status: 'running', leased_by: 'w2', lease_fence: 2 });
          }
        }
      });

      it("a stale holder's checkpoint racing a claim's sweep never lands under the lost epoch after it", async () => {
        const [holder, claimer] = await Promise.all([fx!.connect(), fx!.connect()]);
        for (let round = 0; round < 10; round++) {
          const [id] = await enqueueAll(fx!.store, [`race-${round}`]);
          const job = (await holder.claim('w1'))!;
          await fx!.store.expireLease(id!);
          const lease: Lease = { jobId: id!, workerId: 'w1', fence: job.lease_fence };
          const [written, taken] = await Promise.all([
            holder.appendTx(lease, { stepId: 's', action: 'execute', key: `k-${round}`, status: 'started' }),
            claimer.claim('w2'),
          ]);
          const log = await fx!.store.readTx(id!);
          const events = (await fx!.store.events()).filter((e) => e.job_id === id);
          if (written) {
            expect(log.map((r) => r.epoch)).toEqual([1]);
            // Written before any release of its epoch: ids of the two tables are not comparable, the server's times are.
            const released = events.find((e) => e.to_status === 'retry');
            if (released) expect(log[0]!.at <= released.at).toBe(true);
          } else {
            expect(log).toEqual([]);
            expect(taken?.id).toBe(id);
          }
          // Settle the round so the next starts clean.
          const live = (await fx!.store.jobs()).find((j) => j.id === id)!;
          expect(await fx!.store.complete({ jobId: id!, workerId: live.leased_by!, fence: live.lease_fence }, DIGEST)).toMatchObject({ ok: true });
        }
      });
    });

    describe('row locks', () => {
      /** Polls `condition` until it holds, failing after a deadline (never a fixed sleep). */
      async function waitUntil(what: string, condition: () => Promise<boolean>, deadlineMs = 5_000): Promise<void> {
        const deadline = Date.now() + deadlineMs;
        while (!(await condition())) {
          if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }

      /** A transaction on a foreign connection that releases `jobId`'s lease to retry and holds its row lock until told to commit. */
      async function releaseInFlight(jobId: number): Promise<{ pid: number; commit(): Promise<void>; rollback(): Promise<void> }> {
        const raw = await fx!.raw();
        const pid = (await raw.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await raw.query('BEGIN');
        await raw.query(
          `UPDATE agent_jobs SET status = 'retry', leased_by = NULL, lease_until = NULL, next_run_at = clock_timestamp() WHERE id = $1`,
          [jobId],
        );
        return { pid, commit: async () => void (await raw.query('COMMIT')), rollback: async () => void (await raw.query('ROLLBACK')) };
      }

      /** Whether some backend waits for a lock `pid` holds. */
      async function someoneWaitsFor(pid: number): Promise<boolean> {
        const monitor = await monitorClient();
        return (
          (await monitor.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))', [pid]))
            .rows[0]!.n > 0
        );
      }

      let monitor: pg.Client | undefined;
      async function monitorClient(): Promise<pg.Client> {
        monitor ??= await fx!.raw();
        return monitor;
      }
      afterEach(() => {
        monitor = undefined; // closed with the fixture's other raw clients
      });

      /** Settles `promise` into a flag, so a test can tell "returned" from "still waiting". */
      function track<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
        let settled = false;
        const tracked = promise.finally(() => {
          settled = true;
        });
        return { promise: tracked, settled: () => settled };
      }

      it("a checkpoint waits for a release in flight on its job, then is refused by what the release wrote (FOR SHARE's re-check)", async () => {
        const [id] = await enqueueAll(fx!.store, ['a']);
        const job = (await fx!.store.claim('w1'))!;
        const release = await releaseInFlight(id!);
        const append = track(
          fx!.store.appendTx({ jobId: id!, workerId: 'w1', fence: job.lease_fence }, { stepId: 's', action: 'execute', key: 'k', status: 'started' }),
        );
        await waitUntil('the checkpoint returns or waits for the release', async () => append.settled() || (await someoneWaitsFor(release.pid)));
        // Checked before the commit: a checkpoint that went ahead on its stale snapshot would have returned already.
        const wentAhead = append.settled();
        await release.commit();
        expect(wentAhead).toBe(false);
        expect(await append.promise).toBe(false);
        expect(await fx!.store.readTx(id!)).toEqual([]);
      });

      it("a lease write waits for a release in flight, then is refused and recorded (FOR NO KEY UPDATE's re-check)", async () => {
        const [id] = await enqueueAll(fx!.store, ['a']);
        const job = (await fx!.store.claim('w1'))!;
        const release = await releaseInFlight(id!);
        const complete = track(fx!.store.complete({ jobId: id!, workerId: 'w1', fence: job.lease_fence }, DIGEST));
        await waitUntil('the write returns or waits for the release', async () => complete.settled() || (await someoneWaitsFor(release.pid)));
        const wentAhead = complete.settled();
        await release.commit();
        expect(wentAhead).toBe(false);
        expect(await complete.promise).toEqual({ ok: false, code: 'QD_LEASE_LOST', current: { status: 'retry', leasedBy: null, fence: 1 } });
        expect((await fx!.store.jobs())[0]).toMatchObject({ status: 'retry', result_digest: null });
        expect((await fx!.store.events()).at(-1)).toMatchObject({ kind: 'refused', from_status: 'retry', to_status: 'done', worker: 'w1' });
      });

      it('a claim skips, without waiting, the jobs another transaction has locked: an expired one to sweep, and a ready one', async () => {
        const [held, swept, readyLocked, readyFree] = await enqueueAll(fx!.store, ['held', 'swept', 'ready-locked', 'ready-free']);
        expect((await fx!.store.claim('w0'))!.id).toBe(held);
        expect((await fx!.store.claim('w0'))!.id).toBe(swept);
        await fx!.store.expireLease(held!);
        await fx!.store.expireLease(swept!);
        // Locked elsewhere: `held` (expired, to sweep) and `ready-locked` (the oldest pending job).
        const raw = await fx!.raw();
        const pid = (await raw.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await raw.query('BEGIN');
        await raw.query('SELECT id FROM agent_jobs WHERE id = ANY ($1) FOR UPDATE', [[held, readyLocked]]);
        try {
          const claimUnblocked = async (workerId: string) => {
            const claim = track(fx!.store.claim(workerId));
            await waitUntil(`${workerId}'s claim returns or waits for the lock`, async () => claim.settled() || (await someoneWaitsFor(pid)));
            expect(claim.settled(), `${workerId}'s claim waited`).toBe(true);
            return (await claim.promise)?.id;
          };
          // Sweeps `swept` (not `held`) back to retry, and takes it: the oldest ready.
          expect(await claimUnblocked('w1')).toBe(swept);
          // Passes over `ready-locked` to the next.
          expect(await claimUnblocked('w2')).toBe(readyFree);
        } finally {
          await raw.query('ROLLBACK');
        }
        const rows = await fx!.store.jobs();
        expect(rows.map((j) => [j.id, j.status, j.leased_by, j.lease_fence])).toEqual([
          [held, 'running', 'w0', 1],
          [swept, 'running', 'w1', 2],
          [readyLocked, 'pending', null, 0],
          [readyFree, 'running', 'w2', 1],
        ]);
      });
    });

    describe('the state machine in the schema', () => {
      it('refuses, whoever writes, every status change the machine does not allow, and allows the rest', async () => {
        const store = fx!.store;
        const byStatus = new Map<JobStatus, number>();
        const hold = async (key: string): Promise<Lease> => {
          const [id] = await enqueueAll(store, [key]);
          const job = (await store.claim('w1'))!;
          expect(job.id).toBe(id);
          return { jobId: id!, workerId: 'w1', fence: job.lease_fence };
        };
        byStatus.set('running', (await hold('running')).jobId);
        const done = await hold('done');
        await store.complete(done, DIGEST);
        byStatus.set('done', done.jobId);
        const review = await hold('review');
        await store.review(review, 'look');
        byStatus.set('review', review.jobId);
        const compensating = await hold('compensating');
        await store.beginCompensation(compensating, 'failed', 'e');
        byStatus.set('compensating', compensating.jobId);
        const retry = await hold('retry');
        await store.retry(retry, 'flaky');
        byStatus.set('retry', retry.jobId);
        byStatus.set('pending', (await enqueueAll(store, ['pending']))[0]!);
        expect((await store.jobs()).map((j) => [j.id, j.status]).sort()).toEqual([...byStatus].map(([s, id]) => [id, s]).sort());

        const raw = await fx!.raw();
        const refusals: string[] = [];
        for (const from of JOB_STATUSES) {
          for (const to of JOB_STATUSES) {
            if (from === to) continue;
            await raw.query('BEGIN');
            try {
              // The outcome and digest a sound writer would set, so only the machine can say no.
              await raw.query(
                `UPDATE agent_jobs SET status = $1, outcome = CASE $1 WHEN 'done' THEN 'done' WHEN 'review' THEN 'review' END, result_digest = $3 WHERE id = $2`,
                [to, byStatus.get(from), DIGEST],
              );
            } catch (error) {
              expect((error as pg.DatabaseError).code).toBe('23514');
              expect((error as Error).message).toBe(`QD_TRANSITION_NOT_ALLOWED: ${from} -> ${to} is not allowed`);
              refusals.push(`${from}>${to}`);
            } finally {
              await raw.query('ROLLBACK');
            }
          }
        }
        const expected = JOB_STATUSES.flatMap((from) =>
          JOB_STATUSES.filter((to) => to !== from && !isAllowedTransition(from, to)).map((to) => `${from}>${to}`),
        );
        expect(refusals).toEqual(expected);
        expect(refusals).toContain('review>running');
        expect(refusals).toContain('done>pending');

        await expect(
          raw.query(
            `INSERT INTO agent_jobs (idempotency_key, action, payload_json, status, next_run_at, created_at, updated_at) VALUES ('x', 'a', '{}', 'running', now(), now(), now())`,
          ),
        ).rejects.toThrow('QD_TRANSITION_NOT_ALLOWED: a job is created pending, not running');
        // A status left as it is (or not named) is no change.
        await raw.query(`UPDATE agent_jobs SET status = status, last_error = 'touched' WHERE id = $1`, [byStatus.get('done')]);
      });

      it('refuses a job that ends without its outcome, or done without a digest', async () => {
        const [id] = await enqueueAll(fx!.store, ['a']);
        await fx!.store.claim('w1');
        const raw = await fx!.raw();
        await expect(raw.query(`UPDATE agent_jobs SET status = 'review' WHERE id = $1`, [id])).rejects.toThrow(/agent_jobs_outcome_fits_status/);
        await expect(raw.query(`UPDATE agent_jobs SET status = 'done', outcome = 'done' WHERE id = $1`, [id])).rejects.toThrow(
          /agent_jobs_done_has_digest/,
        );
        await expect(raw.query(`UPDATE agent_jobs SET outcome = 'done' WHERE id = $1`, [id])).rejects.toThrow(/agent_jobs_outcome_fits_status/);
        expect((await fx!.store.jobs())[0]).toMatchObject({ status: 'running', outcome: null });
      });
    });

    describe('schemas', () => {
      it("keeps two queues apart: neither sees the other's rows", async () => {
        const other = await pgFixture('isolation', behaviourOptions());
        try {
          const mine = await fx!.store.enqueue({ key: 'same-key', action: 'a', payloadJson: '{}', maxAttempts: 1 });
          const theirs = await other.store.enqueue({ key: 'same-key', action: 'b', payloadJson: '{}', maxAttempts: 1 });
          expect(mine.created).toBe(true);
          expect(theirs.created).toBe(true);
          const job = (await fx!.store.claim('w1'))!;
          await fx!.store.appendTx({ jobId: job.id, workerId: 'w1', fence: 1 }, { stepId: 's', action: 'execute', key: 'k', status: 'started' });
          expect((await other.store.jobs()).map((j) => [j.action, j.status])).toEqual([['b', 'pending']]);
          expect(await other.store.readTx()).toEqual([]);
          expect((await other.store.events()).map((e) => e.to_status)).toEqual(['pending']);
          expect((await fx!.store.jobs()).map((j) => [j.action, j.status])).toEqual([['a', 'running']]);
        } finally {
          await other.close();
        }
      });

      it('creates a schema once, drops it whether or not it is there, and a store on a missing one says so', async () => {
        const schema = schemaNameFor(`create-drop-${fx!.schema}`);
        await createSchema(PG_URL, schema, SCHEMA_SQL);
        await expect(createSchema(PG_URL, schema, SCHEMA_SQL)).rejects.toThrow(/already exists/);
        await dropSchema(PG_URL, schema);
        await dropSchema(PG_URL, schema);
        const store = new PgLeaseStore({ url: PG_URL, schema }, behaviourOptions());
        try {
          await expect(store.jobs()).rejects.toBeInstanceOf(PgSchemaMissingError);
        } finally {
          await store.close();
        }
      });

      it('takes its times from the server, whatever clock it is given', async () => {
        const store = await fx!.connect({ clock: { now: () => Date.UTC(2000, 0, 1) } });
        const before = Date.now();
        await store.enqueue({ key: 'a', action: 'a', payloadJson: '{}', maxAttempts: 1 });
        const job = (await store.claim('w1'))!;
        // The server runs on this machine: its clock and ours agree to well within a minute.
        expect(Math.abs(Date.parse(job.created_at) - before)).toBeLessThan(60_000);
        expect(Date.parse(job.lease_until!) - Date.parse(job.updated_at)).toBe(30_000);
      });
    });
  },
);

describe('PostgreSQL connection settings', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('resolves the URL: given, else $QD_PG_URL, else the local default', () => {
    vi.stubEnv('QD_PG_URL', 'postgres://env@db:5432/q');
    expect(resolvePgUrl('postgres://given@db/q')).toBe('postgres://given@db/q');
    expect(resolvePgUrl()).toBe('postgres://env@db:5432/q');
    expect(resolvePgUrl('')).toBe('postgres://env@db:5432/q');
    vi.stubEnv('QD_PG_URL', '');
    expect(resolvePgUrl()).toBe(DEFAULT_PG_URL);
    expect(DEFAULT_PG_URL).toBe('postgres://postgres@127.0.0.1:5432/postgres');
  });

  it.each([
    ['postgres://u:secret@host/db', 'postgres://u:***@host/db'],
    ['postgresql://app:p%40ss@db.example:6432/queue?sslmode=require', 'postgresql://app:***@db.example:6432/queue?sslmode=require'],
    ['postgres://u:p@ss@host:5432/db', 'postgres://u:***@host:5432/db'],
    ['postgres://u:@host/db', 'postgres://u:***@host/db'],
    ['postgres://postgres@127.0.0.1:5432/postgres', 'postgres://postgres@127.0.0.1:5432/postgres'],
    ['postgres://host/db?user=u&password=secret&sslmode=disable', 'postgres://host/db?user=u&password=***&sslmode=disable'],
    ['postgres:///db?host=/var/run/postgresql', 'postgres:///db?host=/var/run/postgresql'],
  ])('masks the password of %s', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it('says in one line, password hidden, that a server cannot be reached (exit 2)', async () => {
    const url = 'postgres://postgres:hunter2-secret@127.0.0.1:5999/postgres';
    const error = await assertPgReachable(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PgUnreachableError);
    expect(error).toBeInstanceOf(InputError);
    const unreachable = error as PgUnreachableError;
    expect(unreachable.code).toBe('QD_PG_UNREACHABLE');
    expect(unreachable.exitCode).toBe(EXIT.badInput);
    expect(unreachable.where).toBe('postgres://postgres:***@127.0.0.1:5999/postgres');
    expect(unreachable.message).toBe(
      'cannot connect to PostgreSQL at postgres://postgres:***@127.0.0.1:5999/postgres: connect ECONNREFUSED 127.0.0.1:5999',
    );
    expect(unreachable.message).not.toContain('hunter2');
    expect(unreachable.message).not.toMatch(/[\r\n]/);
  });

  it('names a URL it cannot parse without echoing its secret', async () => {
    const url = 'postgres://u:topsecret-pw@[::1:5432/db';
    const error = (await assertPgReachable(url).catch((e: unknown) => e)) as PgUnreachableError;
    expect(error).toBeInstanceOf(PgUnreachableError);
    expect(error.message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/u:\*\*\*@\[::1:5432\/db: /);
    expect(error.message).not.toContain('topsecret');
    expect(error.message).not.toMatch(/[\r\n]/);
  });
});

describe('queue schema names', () => {
  it('are qd_, lowercase [a-z0-9_], at most 63 characters, and the same for the same run', () => {
    for (const runId of ['run-1', 'Run 2026-08-25T10:00:00.000Z #7', 'x'.repeat(300), 'ünïcødé-ïd', '', '___', '42']) {
      const name = schemaNameFor(runId);
      expect(name).toMatch(/^qd_[a-z0-9_]+$/);
      expect(name.length).toBeLessThanOrEqual(63);
      expect(schemaNameFor(runId)).toBe(name);
      expect(() => assertSchemaName(name)).not.toThrow();
    }
    expect(schemaNameFor('Drill-42')).toMatch(/^qd_drill_42_[0-9a-f]{12}$/);
  });

  it('are unique per run, even for ids that read the same once cleaned or share a long prefix', () => {
    const long = 'a'.repeat(100);
    const ids = ['Run-1', 'run-1', 'run_1', 'run.1', 'run 1', `${long}1`, `${long}2`, '', ' '];
    expect(new Set(ids.map(schemaNameFor)).size).toBe(ids.length);
  });

  it('refuses a schema name that is not a plain lowercase identifier', () => {
    for (const bad of ['Qd_x', 'qd-x', `qd_x"; DROP SCHEMA public; --`, 'pg_catalog', '1qd', '', 'q'.repeat(64)]) {
      expect(() => assertSchemaName(bad), bad).toThrow(InputError);
    }
  });
});
