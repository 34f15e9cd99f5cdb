import type { Leftover } from '../leftovers/leftover.js';
import { parseOwnerMark } from '../leftovers/owner-mark.js';
import { maskUrl, withPgClient } from './connection.js';
import { quoteIdent } from './identifier.js';
import { leaseLiveIn, SERVER_NOW_MS } from './owner-comment.js';

/** How long a drop waits for a lock before giving up on that schema or database (and saying so), rather than hang the sweep. */
const LOCK_TIMEOUT = '10s';

/** A name, its comment, and the server's clock, as the listings read them. */
export interface CommentRow {
  name: string;
  comment: string | null;
  now_ms: string;
}

/** Every schema of the URL's database named as a drill's (`prefixes`: qd_, qdpb_), with its mark and lease. */
export async function listDrillSchemas(url: string, prefixes: readonly string[]): Promise<Leftover[]> {
  const rows = await withPgClient(url, async (client) => {
    const found = await client.query<CommentRow>(
      `SELECT n.nspname AS name, obj_description(n.oid, 'pg_namespace') AS comment, ${SERVER_NOW_MS} AS now_ms
         FROM pg_namespace n
        WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS p(prefix) WHERE left(n.nspname, length(p.prefix)) = p.prefix)
        ORDER BY n.nspname`,
      [prefixes],
    );
    return found.rows;
  });
  return rows.map((row) => commentedLeftover(url, 'schema', row, () => dropLeftSchema(url, row.name)));
}

/** A schema or database as clean judges it: its owner mark and lease read from its comment, by the server's clock. */
export function commentedLeftover(url: string, kind: 'schema' | 'database', row: CommentRow, remove: () => Promise<void>): Leftover {
  return {
    kind,
    name: row.name,
    server: maskUrl(url),
    mark: parseOwnerMark(row.comment),
    leaseLive: leaseLiveIn(row.comment, Number(row.now_ms)),
    remove,
  };
}

/** Drops a schema a dead drill left, with everything in it; waits LOCK_TIMEOUT at most for a lock on it. */
async function dropLeftSchema(url: string, schema: string): Promise<void> {
  await withPgClient(url, async (client) => {
    await client.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  });
}
