import { join } from 'node:path';
import { runMigrations } from 'graphile-worker';
import { withPgClient } from '../postgres/connection.js';
import { assertSchemaName, quoteIdent } from '../postgres/identifier.js';
import { runSchemaName } from '../postgres/provision.js';
import { historySql } from './history-sql.js';
import { silentLogger } from './logger.js';

/** The file of the saga's checkpoints, in the run directory (graphile's writes cannot share a transaction with them). */
export const SAGA_FILE = 'saga.sqlite';

const PREFIX = 'qd_gw_';
const MAX_NAME = 37;

/**
 * The graphile schema of one drill: `qd_gw_`, the start of the run id made
 * readable, and a hash of the whole id. Short (at most 37 characters):
 * graphile names its prepared statements `<statement>/<schema>`, and
 * PostgreSQL cuts such names at 63 characters, with a warning on every start.
 */
export function graphileSchemaFor(runId: string): string {
  return runSchemaName(runId, PREFIX, MAX_NAME);
}

/**
 * Makes one drill's queue: graphile-worker's own migrations into a schema of
 * its own (before any process of the drill starts, so no worker races to
 * migrate), then the harness's history trigger and where the saga file is.
 * A schema of that name already there is an error, never reused.
 */
export async function provisionSchema(url: string, schema: string, runDir: string): Promise<void> {
  assertSchemaName(schema);
  await withPgClient(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (found.rowCount !== 0) throw new Error(`schema ${schema} already exists; a drill's queue is never reused`);
  });
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
