import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quoteIdent } from '../../../src/adapters/pg/identifier.js';
import { waitFor } from '../../../src/harness/wait-for.js';
import { MAX_IDLE_MS, waitForWork } from '../../../src/port/wait-for-work.js';
import type { JobRow } from '../../../src/reference/job.js';
import type { LeaseStoreOptions } from '../../../src/reference/lease-store.js';
import { PgLeaseStore } from '../../../src/reference/postgres/pg-lease-store.js';
import { PgWakeSignals, WAKE_APPLICATION_NAME, type WakeNote } from '../../../src/reference/postgres/pg-wake-signals.js';
import { enqueue } from '../../../src/reference/postgres/sql/enqueue.js';
import { wakeChannel } from '../../../src/reference/postgres/sql/wake.js';
import { LeaseTrustedStore } from '../../../src/variants/lease-trusted-after-partition/lease-trusted-store.js';
import { type FreshSchema, freshSchema, PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { behaviourOptions } from '../lease-store-behaviour.js';

/*
 * Idle workers and the coordinator on the PostgreSQL reference sleep until a
 * write that gives them work commits (LISTEN/NOTIFY), as they do on SQLite
 * until data_version moves. The waits here are given a bound (maxIdleMs) far
 * beyond the tests' own deadlines and nothing due by time, so only a
 * notification can end them: none of these can pass by polling.
 */

// Only a wake signal can end a wait this long before the test's deadline.
const NEVER = 60_000;
const POLL_MS = 5;
const DEADLINE_MS = 5_000;

describe.skipIf(skipWithoutPg('the PostgreSQL wake signals (test/reference/postgres/wake-signals.test.ts)'))(
  'PostgreSQL wake signals: LISTEN/NOTIFY for idle workers and the coordinator',
  () => {
    let fresh: FreshSchema;
    let cleanups: Array<() => Promise<unknown>>;
    let admin: pg.Client;

    beforeEach(async () => {
      fresh = await freshSchema('wake');
      cleanups = [];
      admin = await rawClient();
    });
    afterEach(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
      await fresh.drop();
    });

    function storeOn(options: Partial<LeaseStoreOptions> = {}): PgLeaseStore {
      const store = new PgLeaseStore({ url: PG_URL, schema: fresh.schema }, { ...behaviourOptions(), ...options });
      cleanups.push(() => store.close());
      return store;
    }

    /** A plain connection to the queue's schema: another process's, knowing nothing of the store. */
    async function rawClient(): Promise<pg.Client> {
      const client = new pg.Client({ connectionString: PG_URL });
      client.on('error', () => {});
      await client.connect();
      cleanups.push(() => client.end());
      await client.query(`SET search_path TO ${quoteIdent(fresh.schema)}`);
      return client;
    }

    /** A store's signals, once its LISTEN connection hears (the first read of the count opens it). */
    async function listening(signals: PgWakeSignals | null): Promise<PgWakeSignals> {
      if (!signals) throw new Error('the store gives no wake signals');
      // Read as a waiting worker reads it, every poll: a lost connection is opened again on a read.
      const read = () => {
        signals.changeCount();
        return signals.listening;
      };
      await waitFor(read, { timeoutMs: DEADLINE_MS, intervalMs: 5, what: 'the LISTEN connection to be open' });
      return signals;
    }

    /** The backends listening on this test's queue: LISTEN is the last statement each ran. */
    async function listeners(): Promise<Array<{ pid: number; application_name: string }>> {
      const listen = `LISTEN ${quoteIdent(wakeChannel(fresh.schema))}`;
      return (await admin.query('SELECT pid, application_name FROM pg_stat_activity WHERE query = $1', [listen])).rows;
    }

    const job = (key: string) => ({ key, action: 'charge', payloadJson: '{}', maxAttempts: 3 });

    it("wakes an idle worker's waitForWork on another connection's enqueue once it commits, not before", async () => {
      const worker = storeOn();
      const signals = await listening(worker.wakeSignals);
      // A listener of our own on the same channel, and on a fence channel: notifications reach it in commit order.
      const heard: string[] = [];
      const witness = await rawClient();
      witness.on('notification', (n) => heard.push(n.channel === 'fence' ? 'fence' : 'wake'));
      await witness.query(`LISTEN ${quoteIdent(wakeChannel(fresh.schema))}; LISTEN fence`);

      const before = signals.changeCount();
      expect(await worker.claim('w1')).toBeNull();
      expect(await signals.msUntilDue()).toBeNull();
      let committing = false;
      let wokeWhileOpen = false;
      let wokeAt = 0;
      const waiting = waitForWork(signals, before, POLL_MS, new AbortController().signal, NEVER).then(() => {
        wokeWhileOpen = !committing;
        wokeAt = Date.now();
      });

      const producer = await rawClient();
      await producer.query('BEGIN');
      expect((await enqueue(producer, job('k1'))).created).toBe(true);
      // The job is written, not committed: a fence committed now reaches every listener after any wake sent before it.
      await admin.query('NOTIFY fence');
      await waitFor(() => heard.includes('fence'), { timeoutMs: DEADLINE_MS, intervalMs: 5, what: 'the fence' });
      expect(heard).toEqual(['fence']);
      expect(signals.changeCount()).toBe(before);

      committing = true;
      const committedAt = Date.now();
      await producer.query('COMMIT');
      await waiting;
      expect(wokeWhileOpen).toBe(false);
      // Woken by the commit, within the bound an idle worker claims again after anyway (here a minute).
      expect(wokeAt - committedAt).toBeLessThan(MAX_IDLE_MS);
      expect(signals.changeCount()).toBeGreaterThan(before);
      expect((await worker.claim('w1'))?.idempotency_key).toBe('k1');
    });

    it('does not move the count for a transaction that rolls back', async () => {
      const worker = storeOn();
      const signals = await listening(worker.wakeSignals);
      const before = signals.changeCount();
      const producer = await rawClient();
      await producer.query('BEGIN');
      await enqueue(producer, job('rolled-back'));
      await producer.query('ROLLBACK');
      // Two committed notifications after it: had the rollback sent one, it would come before them, and count too.
      const channel = quoteIdent(wakeChannel(fresh.schema));
      for (const n of [1, 2]) {
        await admin.query(`NOTIFY ${channel}, 'fence ${n}'`);
        await waitFor(() => signals.changeCount() >= before + n, { timeoutMs: DEADLINE_MS, intervalMs: 5, what: `fence ${n}` });
      }
      expect(signals.changeCount()).toBe(before + 2);
      expect(await worker.jobs()).toEqual([]);
    });

    it('notifies for what gives idle processes work, and not for a claim that takes it or a renewal', async () => {
      const other = storeOn({ leaseMs: 60_000 });
      const channel = quoteIdent(wakeChannel(fresh.schema));
      const heard: string[] = [];
      const witness = await rawClient();
      witness.on('notification', (n) => heard.push(n.payload ?? ''));
      await witness.query(`LISTEN ${channel}`);
      let fences = 0;
      /** Whether `write` notified: fenced by a NOTIFY of our own after it, which comes after any of the write's. */
      const wakes = async (write: () => Promise<unknown>): Promise<boolean> => {
        const mark = heard.length;
        await write();
        const fence = `fence ${++fences}`;
        await admin.query(`NOTIFY ${channel}, '${fence}'`);
        await waitFor(() => heard.includes(fence), { timeoutMs: DEADLINE_MS, intervalMs: 5, what: fence });
        return heard.slice(mark).includes('');
      };
      const claimed = async (): Promise<JobRow> => {
        const row = await other.claim('w2');
        if (!row) throw new Error('nothing claimed');
        return row;
      };
      const lease = (row: JobRow) => ({ jobId: row.id, workerId: 'w2', fence: row.lease_fence });

      expect(await wakes(() => other.enqueue(job('k1')))).toBe(true);
      expect(await wakes(() => other.enqueue(job('k1')))).toBe(false); // a duplicate: nothing new
      let row: JobRow | undefined;
      expect(await wakes(async () => (row = await claimed()))).toBe(false);
      expect(await wakes(() => other.heartbeat(lease(row!)))).toBe(false);
      expect(await wakes(() => other.retry(lease(row!), 'boom'))).toBe(true);
      row = await claimed();
      expect(await wakes(() => other.expireLease(row!.id))).toBe(true);
      expect(await wakes(async () => expect(await other.claim('w3')).not.toBeNull())).toBe(true); // its sweep took the lease back
      await other.enqueue(job('k2'));
      row = await claimed();
      expect(await wakes(() => other.beginCompensation(lease(row!), 'plan failed', 'boom'))).toBe(true);
      const saga = await other.claimCompensation('c1');
      expect(saga).not.toBeNull();
      const held = { jobId: saga!.id, workerId: 'c1', fence: saga!.lease_fence };
      expect(await wakes(() => other.finishCompensation(held, 'compensated', 'undone'))).toBe(true);
      expect(await wakes(() => other.requeueFromReview(saga!.id, 'ops', 'try again'))).toBe(true);
      expect(await wakes(() => other.heartbeat(held))).toBe(false); // refused: the saga is no longer c1's
      // A done that hands its worker the next job leaves as many running: no one waiting to drain has news. The last one does.
      await other.enqueue(job('k3'));
      await other.enqueue(job('k4'));
      row = await claimed();
      const digest = 'a'.repeat(64);
      let next: JobRow | null = null;
      expect(await wakes(async () => ({ next } = await other.completeAndClaim!(lease(row!), digest, 'w2')))).toBe(false);
      // Then the rest (the saga requeued above is ready too), each handing over the next, until the last finds none.
      while (next !== null) {
        const held: JobRow = next;
        const woke = await wakes(async () => ({ next } = await other.completeAndClaim!(lease(held), digest, 'w2')));
        expect(woke).toBe(next === null);
      }
    });

    it('says when a job falls due by time: none, now, at a retry delay, at a lease end plus the skew margin', async () => {
      const store = storeOn({ leaseMs: 10_000, skewMarginMs: 500, retryDelay: { baseMs: 4_000, capMs: 4_000, jitterMs: 0 } });
      const signals = store.wakeSignals!;
      expect(await signals.msUntilDue()).toBeNull();
      await store.enqueue(job('k1'));
      expect(await signals.msUntilDue()).toBe(0);
      const row = (await store.claim('w1'))!;
      const untilLeaseEnd = (await signals.msUntilDue())!;
      expect(untilLeaseEnd).toBeGreaterThan(10_000 + 500 - 1_000);
      expect(untilLeaseEnd).toBeLessThanOrEqual(10_000 + 500 + 1);
      await store.retry({ jobId: row.id, workerId: 'w1', fence: row.lease_fence }, 'boom');
      const untilRetry = (await signals.msUntilDue())!;
      expect(untilRetry).toBeGreaterThan(4_000 - 1_000);
      expect(untilRetry).toBeLessThanOrEqual(4_000);
      await admin.query(`UPDATE agent_jobs SET next_run_at = clock_timestamp() - interval '1 minute'`);
      expect(await signals.msUntilDue()).toBe(0);
    });

    it('close() ends the LISTEN connection with the pool, leaving no connection behind', async () => {
      const store = storeOn();
      await listening(store.wakeSignals);
      const before = await listeners();
      expect(before).toHaveLength(1);
      expect(before[0]?.application_name).toBe(WAKE_APPLICATION_NAME);
      await store.close();
      await waitFor(async () => (await listeners()).length === 0, { timeoutMs: DEADLINE_MS, what: 'the LISTEN backend to end' });
      // Closed, it opens nothing again, and reads of the count poll.
      const count = store.wakeSignals!.changeCount();
      expect(store.wakeSignals!.changeCount()).toBe(count + 1);
      expect(store.wakeSignals!.listening).toBe(false);
      expect(await listeners()).toEqual([]);
    });

    it('a producer, which never reads the count, opens no LISTEN connection', async () => {
      const producer = storeOn();
      await producer.enqueue(job('k1'));
      expect(await listeners()).toEqual([]);
    });

    it('survives its LISTEN connection being killed: notes it, polls (waitForWork still returns), and listens again', async () => {
      const notes: Array<{ event: string }> = [];
      const note: WakeNote = (line) => notes.push(line);
      const signals = new PgWakeSignals({ url: PG_URL, schema: fresh.schema }, async () => null, note);
      cleanups.push(() => signals.close());
      await listening(signals);
      const [listener] = await listeners();
      await admin.query('SELECT pg_terminate_backend($1)', [listener!.pid]);
      await waitFor(() => !signals.listening, { timeoutMs: DEADLINE_MS, intervalMs: 5, what: 'the loss to be seen' });
      expect(notes.map((n) => n.event)).toEqual(['wake-signals-lost']);
      // Polling: a wait with nothing due and a bound of a minute returns after a poll or two.
      const before = signals.changeCount();
      const started = Date.now();
      await waitForWork(signals, before, POLL_MS, new AbortController().signal, NEVER);
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
      // Opened again on a later read, and woken by notifications as before.
      await listening(signals);
      expect(notes.map((n) => n.event)).toEqual(['wake-signals-lost', 'wake-signals-listening']);
      const after = signals.changeCount();
      const waiting = waitForWork(signals, after, POLL_MS, new AbortController().signal, NEVER);
      await storeOn().enqueue(job('k1'));
      await waiting;
    });

    it('close() does not hang on a server that never answers (a partitioned link): the connection is cut', async () => {
      const sockets: Socket[] = [];
      const silent: Server = createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      cleanups.push(async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      });
      const port = (silent.address() as { port: number }).port;
      const notes: Array<{ event: string }> = [];
      const signals = new PgWakeSignals(
        { url: `postgres://postgres@127.0.0.1:${port}/postgres`, schema: fresh.schema },
        async () => null,
        (line) => notes.push(line),
      );
      const first = signals.changeCount();
      // Not listening: every read moves the count, so a waiting worker claims again after each poll.
      expect(signals.changeCount()).toBe(first + 1);
      await waitFor(() => sockets.length > 0, { timeoutMs: DEADLINE_MS, intervalMs: 5, what: 'the connection attempt' });
      const started = Date.now();
      await signals.close();
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
      expect(signals.listening).toBe(false);
    });
  },
);

describe('PostgreSQL wake signals: only where the claim is the reference’s', () => {
  it("a variant that claims its own way gives none (its workers poll); one that keeps the reference's claim does", async () => {
    class OwnClaim extends PgLeaseStore {
      override claim(workerId: string) {
        return super.claim(workerId);
      }
    }
    const location = { url: PG_URL, schema: 'qd_never_connected' };
    const stores = [new PgLeaseStore(location, behaviourOptions()), new OwnClaim(location, behaviourOptions())];
    const trusted = new LeaseTrustedStore(location, behaviourOptions());
    try {
      expect(stores[0]?.wakeSignals).toBeInstanceOf(PgWakeSignals);
      expect(stores[1]?.wakeSignals).toBeNull();
      expect(trusted.wakeSignals).toBeInstanceOf(PgWakeSignals);
    } finally {
      await Promise.all([...stores, trusted].map((s) => s.close()));
    }
  });
});
