import { createRequire } from 'node:module';
import type { QueueAdapter } from '../../port/adapter.js';
import { ownerMarkHere } from '../leftovers/owner-mark.js';
import { assertPgReachable, maskUrl, resolvePgUrl } from '../pg/connection.js';
import { holdOwnerComment } from '../pg/owner-comment.js';
import { restartPostgresServer } from '../pg/restart-server.js';
import { GRAPHILE_CAPABILITIES } from './capabilities.js';
import { fitGraphile } from './fit.js';
import { databaseUrl, GRAPHILE_SCHEMA, graphileDatabaseFor, locatorOf, parseLocator } from './locator.js';
import { GRAPHILE_OPTIONS } from './options.js';

/** The installed graphile-worker's version, from its package. */
function installedVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('graphile-worker/package.json') as { version: string }).version;
}

/**
 * graphile-worker 0.16 on PostgreSQL, as its users run it: its own run() loop
 * and SQL, addJob in the job_key_mode asked (graphile's default, replace,
 * unless told), a database per drill (its migrations in graphile's default
 * schema, plus the harness's history trigger), the saga's checkpoints beside
 * the run. A dead worker's job stays locked until graphile's own 4-hour sweep,
 * unless release_dead_locks adds the piece a deployment may add: the drill's
 * coordinator freeing a lock older than the lease with forceUnlockWorkers. The
 * server is --pg-url, else QD_PG_URL, else the scenario's pg_url, else
 * postgres://postgres@127.0.0.1:5432/postgres; the drill's database is made on it.
 */
export const graphileAdapter: QueueAdapter = {
  name: 'graphile-worker',
  description: 'graphile-worker on PostgreSQL: its own run() loop, job_key in its default replace mode, no lease (its own 4-hour lock sweep)',
  // Read when asked (a report, `queues`), not when the registry loads: every drill process loads it.
  get version() {
    return `graphile-worker ${installedVersion()}`;
  },
  options: GRAPHILE_OPTIONS,
  capabilities: GRAPHILE_CAPABILITIES,
  soundness: 'observed',
  needs: ['pgUrl'],
  locatorKind: 'name',
  async preflight(servers) {
    const { assertCanCreateDatabase } = await import('./preflight.js');
    await assertCanCreateDatabase(resolvePgUrl(servers.pgUrl));
  },
  // graphile-worker lives in PostgreSQL: the server restart cuts its workers' connections and LISTEN.
  restartServer: restartPostgresServer,
  async provision(request) {
    // graphile-worker loads only here and in connect: every process of every drill reads this registry, and most never use it.
    const { dropDatabase, provisionDatabase } = await import('./provision.js');
    const serverUrl = resolvePgUrl(request.servers.pgUrl);
    const location = { database: graphileDatabaseFor(request.runId), schema: GRAPHILE_SCHEMA };
    // Marked as this drill's, so `queue-drill clean` takes it if this process dies before its teardown.
    const owner = ownerMarkHere('graphile-worker', request.runDir);
    await provisionDatabase(serverUrl, location, request.runDir, owner);
    const mark = holdOwnerComment(serverUrl, { kind: 'DATABASE', name: location.database }, owner);
    return {
      locator: locatorOf(location),
      // The server's URL: each process puts the locator's database in its path.
      env: { QD_PG_URL: serverUrl },
      where: `${maskUrl(databaseUrl(serverUrl, location.database))} schema ${location.schema}`,
      teardown: async ({ keep }) => {
        await mark.end({ keep });
        if (!keep) await dropDatabase(serverUrl, location.database);
      },
    };
  },
  async connect(locator, options) {
    const location = parseLocator(locator);
    // An unreachable server, or a database that is not there (dropped, mistyped), is one line naming it.
    await assertPgReachable(databaseUrl(resolvePgUrl(options.servers?.pgUrl), location.database));
    const { connectGraphile } = await import('./connection.js');
    return connectGraphile(location, options);
  },
  fit: (demands) => fitGraphile(demands),
};
