import pg from 'pg';
import { resolvePgUrl } from '../../adapters/pg/connection.js';
import { quoteIdent } from '../../adapters/pg/identifier.js';
import type { ChildSpec } from './child-spec.js';
import type { ChildWork } from './child-work.js';

/** The raw rate's table: one counter row per child. */
export const POSTGRES_RAW_TABLE_SQL = 'CREATE TABLE bench_raw (id integer PRIMARY KEY, n bigint NOT NULL)';

/**
 * Raw PostgreSQL write transactions on the queue's server: one UPDATE of the
 * child's own row per transaction (autocommit, a prepared statement),
 * `spec.transactions` times. The ceiling the queue on that server is held against.
 */
export async function openPostgresRawWork(spec: ChildSpec): Promise<ChildWork> {
  const client = new pg.Client({ connectionString: resolvePgUrl(), application_name: 'queue-drill bench' });
  client.on('error', () => undefined);
  await client.connect();
  await client.query(`SET search_path TO ${quoteIdent(spec.locator)}`);
  return {
    async run(stop) {
      const query = { name: 'bench-raw-update', text: 'UPDATE bench_raw SET n = n + 1 WHERE id = $1', values: [spec.index] };
      let units = 0;
      let lastAt: number | null = null;
      for (; units < spec.transactions && !stop.aborted; units++) {
        await client.query(query);
        lastAt = Date.now();
      }
      return { units, lastAt };
    },
    close: () => client.end(),
  };
}
