import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction, openPool } from '../../../src/adapters/pg/pool.js';
import { waitFor } from '../../../src/harness/wait-for.js';
import { type FreshSchema, freshSchema, PG_URL, skipWithoutPg } from '../../helpers/postgres.js';

/*
 * A process frozen inside a transaction (SIGSTOP between its heartbeat's
 * UPDATE and COMMIT) holds its row lock for as long as it is frozen, and the
 * sweep that must take its expired lease back waits on that lock:
 * zombie-complete on PostgreSQL ran out of time that way, once in
 * three. The store's pool has the server end such a session; here the same
 * pool option, with the frozen process played by a transaction nobody ends.
 */
describe.skipIf(skipWithoutPg('a session idle in its transaction is ended by the server'))('idle in a transaction', () => {
  let fresh: FreshSchema | undefined;
  afterEach(async () => {
    await fresh?.drop();
    fresh = undefined;
  });

  it('releases the row lock of a transaction left open past idleInTransactionMs, and fails the frozen session', async () => {
    fresh = await freshSchema('idle-tx');
    const frozen = openPool(PG_URL, fresh.schema, 1, { idleInTransactionMs: 300 });
    const sweeper = openPool(PG_URL, fresh.schema, 1);
    try {
      const client = await frozen.connect();
      const ended: Error[] = [];
      client.on('error', (error) => ended.push(error));
      await client.query('CREATE TABLE probe (id int PRIMARY KEY, n int)');
      await client.query('INSERT INTO probe VALUES (1, 0)');
      await client.query('BEGIN');
      await client.query('UPDATE probe SET n = n + 1 WHERE id = 1'); // the row lock, and then nothing: frozen
      const started = Date.now();
      // The sweep's UPDATE waits on the lock until the server ends the frozen session, then goes through.
      await sweeper.query('UPDATE probe SET n = 100 WHERE id = 1');
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect((await sweeper.query<{ n: number }>('SELECT n FROM probe WHERE id = 1')).rows[0]?.n).toBe(100);
      // The frozen process, going on, finds its session gone: its write is not applied.
      await waitFor(() => ended.length > 0 || undefined, { timeoutMs: 5_000, intervalMs: 10, what: 'the frozen session to be ended' });
      expect(String(ended[0])).toMatch(/idle-in-transaction timeout|terminating connection/);
      client.release(true);
    } finally {
      await frozen.end();
      await sweeper.end();
    }
  });

  it('inTransaction: a session the server ends fails the transaction, not the process, and the pool goes on', async () => {
    // zombie-complete on PostgreSQL: a worker frozen inside its heartbeat's
    // transaction woke to an 'error' event on a connection nobody listened to, and died
    // before its stale complete could be written (and refused).
    fresh = await freshSchema('idle-tx-pool');
    const frozen = openPool(PG_URL, fresh.schema, 1, { idleInTransactionMs: 300 });
    const watcher = openPool(PG_URL, fresh.schema, 1);
    try {
      const frozenTransaction = inTransaction(frozen, async (db) => {
        const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const gone = async () =>
          (await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0]!.n === 0 || undefined;
        await waitFor(gone, { timeoutMs: 5_000, intervalMs: 20, what: 'the server to end the idle session' });
        await db.query('SELECT 1');
      });
      await expect(frozenTransaction).rejects.toThrow();
      expect((await inTransaction(frozen, (db) => db.query<{ one: number }>('SELECT 1 AS one'))).rows[0]?.one).toBe(1);
    } finally {
      await frozen.end();
      await watcher.end();
    }
  });
});
