import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { WorldError } from '../errors.js';

/**
 * Opens an existing ledger file for reading, for as long as fn runs. A missing
 * file is an error, not an empty ledger: a harness pointed at the wrong path
 * would otherwise "prove" that no effect was ever duplicated.
 */
export function withLedgerFile<T>(file: string, fn: (db: Database.Database) => T): T {
  if (!existsSync(file)) throw new WorldError('WORLD_LEDGER_MISSING', `no ledger file at ${file}`);
  // Read-write but never written: a read-only WAL connection fails when the -shm file is missing.
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return fn(db);
  } finally {
    db.close();
  }
}
