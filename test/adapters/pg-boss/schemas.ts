import pg from 'pg';
import { PG_URL } from '../../helpers/postgres.js';

/** The pg-boss schemas on the test server whose names match `pattern` (a test's own are dropped when it ends). */
export async function pgBossSchemasLeft(pattern: RegExp): Promise<string[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'qdpb\\_%' ORDER BY 1");
    return rows.map((r) => r.nspname).filter((name) => pattern.test(name));
  } finally {
    await client.end();
  }
}
