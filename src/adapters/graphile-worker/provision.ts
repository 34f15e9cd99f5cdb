import { join } from 'node:path';
import { runMigrations } from 'graphile-worker';
import type { OwnerMark } from '../leftovers/owner-mark.js';
import { withPgClient } from '../pg/connection.js';
import { quoteIdent } from '../pg/identifier.js';
import { writeOwnerComment } from '../pg/owner-comment.js';
import { historySql } from './history-sql.js';
import { databaseUrl, type GraphileLocation } from './locator.js';
import { silentLogger } from './logger.js';

/** The file of the saga's checkpoints, in the run directory (graphile's writes cannot share a transaction with them). */
export const SAGA_FILE = 'saga.sqlite';

/** SQLSTATE duplicate_database: a database of that name was there before this drill. */
const DUPLICATE_DATABASE = '42P04';

/** Drops a drill's database, closing whatever connection is left on it (PostgreSQL 13+); nothing to drop is fine. */
export async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  await withPgClient(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
  });
}

/** graphile's migrations, then the harness's history trigger and where the saga file is, in the drill's database. */
async function migrate(url: string, schema: string, runDir: string): Promise<void> {
  await runMigrations({ connectionString: url, schema, logger: silentLogger });
  await withPgClient(url, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(historySql(schema));
      await client.query(`INSERT INTO ${quoteIdent(schema)}.qd_drill (saga_file) VALUES ($1)`, [join(runDir, SAGA_FILE)]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}

/**
 * Makes one drill's queue: a database of its own (see locator.ts), graphile's
 * own migrations into it (before any process of the drill starts, so no
 * worker races to migrate), then the harness's history trigger. The database
 * is marked as `owner`'s right after it is made (CREATE DATABASE cannot share
 * a transaction; until the mark, clean leaves it alone as unmarked). A database of
 * that name already there is an error, never reused nor dropped; one this call
 * made is dropped again if the rest fails, so no half-made queue is left.
 */
export async function provisionDatabase(serverUrl: string, location: GraphileLocation, runDir: string, owner: OwnerMark): Promise<void> {
  try {
    // template0: a copy of nothing a person added to template1, and no wait on someone connected to it.
    await withPgClient(serverUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(location.database)} TEMPLATE template0`));
  } catch (error) {
    if ((error as { code?: unknown }).code === DUPLICATE_DATABASE) {
      throw new Error(`database ${location.database} already exists; a drill's queue is never reused`, { cause: error });
    }
    throw error;
  }
  try {
    await withPgClient(serverUrl, (client) => writeOwnerComment(client, { kind: 'DATABASE', name: location.database }, owner));
    await migrate(databaseUrl(serverUrl, location.database), location.schema, runDir);
  } catch (error) {
    await dropDatabase(serverUrl, location.database).catch(() => {});
    throw error;
  }
}
