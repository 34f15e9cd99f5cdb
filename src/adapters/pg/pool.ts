import pg from 'pg';
import { InputError } from '../../kernel/errors.js';
import { maskUrl } from './connection.js';
import { assertSchemaName, quoteIdent } from './identifier.js';
import type { Queryable } from './queryable.js';

/** A store opened on a schema the server does not have (never provisioned, or already dropped). */
export class PgSchemaMissingError extends InputError {
  readonly code = 'QD_PG_SCHEMA_MISSING';
  constructor(url: string, schema: string) {
    super(`no queue schema ${schema} at ${maskUrl(url)} (provision it first)`);
  }
}

/** bigint as a JS number, refused beyond 2^53 rather than rounded: ids, epochs and counts stay exact. */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${text} does not fit a JS number exactly`);
  return n;
}

// Per pool, not pg.types.setTypeParser: the process-wide parsers stay as other code expects them.
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: (id, format) => (id === pg.types.builtins.INT8 && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(id, format)),
};

/**
 * A pool of connections to one queue's schema: every connection it makes has
 * the schema (alone) on its search path, set before the connection is handed
 * out, so the SQL names its tables plainly. Set by a query rather than a
 * startup option, so an `options=` in the URL cannot override it.
 * `idleInTransactionMs`: the server ends a session left idle inside a
 * transaction that long (a frozen process's open transaction), so its row
 * locks cannot outlive it.
 */
export function openPool(url: string, schema: string, max: number, options: { idleInTransactionMs?: number } = {}): pg.Pool {
  assertSchemaName(schema);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(options.idleInTransactionMs === undefined ? {} : { idle_in_transaction_session_timeout: options.idleInTransactionMs }),
    types: TYPES,
    application_name: 'queue-drill',
    onConnect: async (client) => {
      const found = await client.query<{ present: boolean }>(
        `SELECT set_config('search_path', $1, false) IS NOT NULL AND EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $2) AS present`,
        [quoteIdent(schema), schema],
      );
      if (!found.rows[0]?.present) throw new PgSchemaMissingError(url, schema);
    },
  });
  // An idle connection that dies (a server restart, a drill's fault) is dropped
  // by the pool and reported to nobody: the next query gets a fresh one.
  // Without a listener the error would end the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `work` in one READ COMMITTED transaction on a connection of its own:
 * committed if it returns, rolled back if it throws. A connection whose
 * rollback failed too is destroyed, never handed out again mid-transaction.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (db: Queryable) => Promise<T>): Promise<T> {
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
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
