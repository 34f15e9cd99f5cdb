import Database from 'better-sqlite3';
import { blockThisThread } from './block-thread.js';

/** How a SQLite file of the drill is opened. */
export interface SqliteFileOptions {
  /** The tables and indexes, each `IF NOT EXISTS`: every process that opens the file runs them. */
  schemaSql: string;
  /** FULL where a commit must survive a power cut (the world's ledger), NORMAL where a process crash is the worst case. */
  synchronous: 'FULL' | 'NORMAL';
  foreignKeys?: boolean;
  /** SQLite's busy_timeout, and the budget of the open itself. @default 10_000 */
  busyTimeoutMs?: number;
}

/** The first retry of a busy open waits this long, each later one twice the one before, up to the cap. */
const FIRST_OPEN_WAIT_MS = 1;
const MAX_OPEN_WAIT_MS = 50;

/**
 * Opens (creating if needed) a SQLite file in WAL mode, as several processes
 * of a drill do at once. SQLite's busy handler does not cover all of that:
 * switching a file to WAL, or making its tables, needs a lock that a
 * connection already reading the file may not wait for (the two would wait on
 * each other), so SQLite reports SQLITE_BUSY at once, whatever busy_timeout
 * says. Three world processes starting on one new ledger met it. Every step
 * of the set-up is idempotent, so the set-up is tried again, after a short
 * wait that doubles, until the busy timeout is spent; then the busy is
 * thrown, not swallowed.
 */
export function openSqliteFile(file: string, options: SqliteFileOptions, now: () => number = Date.now): Database.Database {
  const budgetMs = options.busyTimeoutMs ?? 10_000;
  const db = new Database(file);
  const started = now();
  for (let waitMs = FIRST_OPEN_WAIT_MS; ; waitMs = Math.min(waitMs * 2, MAX_OPEN_WAIT_MS)) {
    try {
      db.pragma(`busy_timeout = ${budgetMs}`);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous}`);
      if (options.foreignKeys) db.pragma('foreign_keys = ON');
      db.exec(options.schemaSql);
      return db;
    } catch (error) {
      if (!isSqliteBusy(error) || now() - started >= budgetMs) {
        db.close();
        throw error;
      }
      blockThisThread(waitMs);
    }
  }
}

/** Whether an error is SQLite's "the lock is taken" (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && String((error as { code: unknown }).code).startsWith('SQLITE_BUSY');
}
