import type Database from 'better-sqlite3';
import { openSqliteFile } from '../../kernel/sqlite-file.js';
import { SCHEMA_SQL } from './schema.js';

/** A connection to a queue store file. */
export type Db = Database.Database;

/**
 * Opens (creating if needed) a queue store file. WAL lets readers run beside the
 * one writer; synchronous=NORMAL in WAL mode survives any process crash (SIGKILL
 * included: only power loss can cost the last commits); busy_timeout makes
 * writers from many processes queue up instead of failing at once. The schema
 * (the reference's unless a variant passes its own) only makes what is missing:
 * a store made by another schema keeps the tables it was made with.
 */
export function openStore(file: string, options: { busyTimeoutMs?: number; schema?: string } = {}): Db {
  return openSqliteFile(file, {
    schemaSql: options.schema ?? SCHEMA_SQL,
    synchronous: 'NORMAL',
    foreignKeys: true,
    busyTimeoutMs: options.busyTimeoutMs,
  });
}

const cache = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement, prepared once per connection. */
export function statement(db: Db, sql: string): Database.Statement {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let prepared = statements.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared;
}

const transactions = new WeakMap<Db, Map<unknown, unknown>>();

/**
 * `body` as a transaction of `db`, made once per connection and body: each
 * db.transaction() call builds a new wrapper (four functions and their
 * properties), which a claim or a complete made per call paid for on every job.
 * `body` must be a function made once (not a closure per call): its
 * arguments carry what changes from call to call.
 */
export function transactionOf<A extends unknown[], R>(db: Db, body: (...args: A) => R): Database.Transaction<(...args: A) => R> {
  let made = transactions.get(db);
  if (!made) {
    made = new Map();
    transactions.set(db, made);
  }
  let transaction = made.get(body) as Database.Transaction<(...args: A) => R> | undefined;
  if (!transaction) {
    transaction = db.transaction(body);
    made.set(body, transaction);
  }
  return transaction;
}
