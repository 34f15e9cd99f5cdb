import { InputError } from '../../kernel/errors.js';
import { assertPgReachable, maskUrl, withPgClient } from '../pg/connection.js';

/** The server answers, but its user may not create the database each drill needs (see locator.ts). */
export class CannotCreateDatabaseError extends InputError {
  readonly code = 'QD_PG_CANNOT_CREATE_DATABASE';
}

/**
 * Fails fast, before any drill starts: the server must answer, and its user
 * must be allowed CREATE DATABASE (a superuser, or a role with CREATEDB), since
 * every drill of graphile-worker gets a database of its own.
 */
export async function assertCanCreateDatabase(serverUrl: string): Promise<void> {
  await assertPgReachable(serverUrl);
  const allowed = await withPgClient(serverUrl, async (client) => {
    const { rows } = await client.query<{ allowed: boolean }>(
      'SELECT (rolsuper OR rolcreatedb) AS allowed FROM pg_roles WHERE rolname = current_user',
    );
    return rows[0]?.allowed === true;
  });
  if (!allowed) {
    throw new CannotCreateDatabaseError(
      `the PostgreSQL user of ${maskUrl(serverUrl)} may not create databases, and each graphile-worker drill runs in a database ` +
        "of its own (graphile's migration notice reaches every worker of a database): grant it CREATEDB, or use another user",
    );
  }
}
