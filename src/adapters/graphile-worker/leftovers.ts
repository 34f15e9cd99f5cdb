import type { Leftover } from '../leftovers/leftover.js';
import { withPgClient } from '../pg/connection.js';
import { type CommentRow, commentedLeftover } from '../pg/leftovers.js';
import { SERVER_NOW_MS } from '../pg/owner-comment.js';
import { GRAPHILE_DATABASE_PREFIX } from './locator.js';
import { dropDatabase } from './provision.js';

/** Every database on the server named as a graphile-worker drill's (qd_gw_), with its mark and lease. */
export async function listDrillDatabases(url: string): Promise<Leftover[]> {
  const rows = await withPgClient(url, async (client) => {
    const found = await client.query<CommentRow>(
      `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment, ${SERVER_NOW_MS} AS now_ms
         FROM pg_database WHERE left(datname, length($1)) = $1 ORDER BY datname`,
      [GRAPHILE_DATABASE_PREFIX],
    );
    return found.rows;
  });
  // WITH (FORCE): a connection its dead drill left open would otherwise keep it for ever.
  return rows.map((row) => commentedLeftover(url, 'database', row, () => dropDatabase(url, row.name)));
}
