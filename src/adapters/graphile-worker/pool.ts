import pg from 'pg';
import { quoteIdent } from '../pg/identifier.js';

/** `schema.name`, quoted. */
export function tableIn(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/**
 * One process's pools, one per application_name it writes under: the history
 * trigger records that name as the writer of each change, so a producer, a
 * coordinator and a person each write on a pool of their own. Errors of idle
 * connections are dropped (the next query gets a fresh one): without a
 * listener they would end the process.
 */
export class NamedPools {
  private readonly pools = new Map<string, pg.Pool>();
  constructor(private readonly url: string) {}

  /** The pool whose connections show `application` (made on first use). */
  get(application: string, max = 2): pg.Pool {
    let pool = this.pools.get(application);
    if (!pool) {
      pool = new pg.Pool({ connectionString: this.url, max, application_name: application });
      pool.on('error', () => {});
      this.pools.set(application, pool);
    }
    return pool;
  }

  /** Ends every pool; one that fails to end does not keep the others open. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((pool) => pool.end()));
  }
}

/**
 * Runs `work` in one transaction on a connection of `pool`: committed if it
 * returns, rolled back if it throws (a connection whose rollback failed is
 * destroyed, never handed out again mid-transaction).
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection handed out is no longer watched by the pool: one the server
  // ends meanwhile (a frozen process's transaction outliving its
  // idle_in_transaction_session_timeout) would end the process. Its next query
  // fails instead, and the connection is destroyed on release.
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
