import Database from 'better-sqlite3';
import { SCHEMA_SQL } from '../sqlite/schema.js';

const UNIQUE_KEY = 'idempotency_key TEXT NOT NULL UNIQUE,';

/**
 * The reference schema without the UNIQUE constraint on idempotency_key (the
 * application checks for duplicates, so the constraint "only got in the way"),
 * with a plain index so the check stays fast.
 */
export const SCHEMA_WITHOUT_UNIQUE_KEY_SQL = (() => {
  // Fails loudly if the reference schema changed shape: a variant that quietly
  // kept the constraint would be the reference under another name.
  if (!SCHEMA_SQL.includes(UNIQUE_KEY)) throw new Error(`the reference schema no longer declares ${JSON.stringify(UNIQUE_KEY)}`);
  return `${SCHEMA_SQL.replace(UNIQUE_KEY, 'idempotency_key TEXT NOT NULL,')}
CREATE INDEX IF NOT EXISTS idx_agent_jobs_key ON agent_jobs(idempotency_key);`;
})();

/**
 * Makes the store's tables from the schema without the unique key, unless the
 * file already has them (then it is left as it is: a store the reference made
 * keeps its constraint). The drill opens the store once before any child
 * starts, so every child finds the tables made.
 */
export function createStoreWithoutUniqueKey(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 10000');
    db.transaction(() => {
      const made = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_jobs'`).get();
      if (!made) db.exec(SCHEMA_WITHOUT_UNIQUE_KEY_SQL);
    }).immediate();
  } finally {
    db.close();
  }
}
