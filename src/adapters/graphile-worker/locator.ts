import { UsageError } from '../../kernel/errors.js';
import { runSchemaName } from '../pg/provision.js';

/*
 * Where one drill's graphile queue lives: a database of its own on the
 * server, not only a schema. graphile announces a breaking migration with
 * NOTIFY on `worker:migrate`, a channel of the whole database, and every
 * runner of that database shuts down on hearing it (exit 57), whatever its
 * schema: drills run side by side must never share a database. The locator
 * names the database (`DATABASE`, graphile's default schema inside it, or
 * `DATABASE/SCHEMA`); every process derives its URL from the server's
 * (--pg-url, QD_PG_URL) by putting that database in its path, so no password
 * is ever part of a locator.
 */

/** graphile-worker's own default schema: a drill's database is its own, so the schema can be graphile's. */
export const GRAPHILE_SCHEMA = 'graphile_worker';

/** The start of every drill database's name: how clean finds them (its owner mark says whose). */
export const GRAPHILE_DATABASE_PREFIX = 'qd_gw_';
/** PostgreSQL's identifier limit: a longer database name would be cut. */
const MAX_NAME = 63;
// Plain lowercase, so a name reads the same quoted or not, in a locator, a log or psql.
const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Where one drill's queue is: its database, and graphile's schema inside it. */
export interface GraphileLocation {
  database: string;
  schema: string;
}

/** The database of one drill: `qd_gw_`, the run id made readable, and a hash of the whole id. */
export function graphileDatabaseFor(runId: string): string {
  return runSchemaName(runId, GRAPHILE_DATABASE_PREFIX, MAX_NAME);
}

/** A locator's database and schema; bad input naming what a locator is, for anything else. */
export function parseLocator(locator: string): GraphileLocation {
  const [database = '', schema = GRAPHILE_SCHEMA, ...rest] = locator.split('/');
  if (rest.length > 0 || !NAME.test(database) || !NAME.test(schema) || database.startsWith('pg_') || schema.startsWith('pg_')) {
    throw new UsageError(
      `not a graphile-worker locator: ${JSON.stringify(locator)} (DATABASE or DATABASE/SCHEMA, each lowercase letters, digits and _, ` +
        'at most 63, not starting with a digit or pg_)',
    );
  }
  return { database, schema };
}

/** The locator of a location: the database alone when the schema is graphile's default. */
export function locatorOf(location: GraphileLocation): string {
  return location.schema === GRAPHILE_SCHEMA ? location.database : `${location.database}/${location.schema}`;
}

/** The server's URL with `database` in its path (its user, password, host and parameters kept). */
export function databaseUrl(serverUrl: string, database: string): string {
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    // Not the parser's error as the cause: it quotes the whole URL, password and all.
    throw new UsageError("the PostgreSQL URL is not a URL (postgres://USER@HOST:PORT/DATABASE): cannot point it at the drill's database");
  }
  url.pathname = `/${database}`;
  return url.href;
}
