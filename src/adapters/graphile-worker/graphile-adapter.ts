import { createRequire } from 'node:module';
import type { QueueAdapter } from '../../port/adapter.js';
import { assertPgReachable, maskUrl, resolvePgUrl } from '../postgres/connection.js';
import { dropSchema } from '../postgres/provision.js';
import { GRAPHILE_CAPABILITIES } from './capabilities.js';
import { fitGraphile } from './fit.js';

/** The installed graphile-worker's version, from its package. */
function installedVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('graphile-worker/package.json') as { version: string }).version;
}

/**
 * graphile-worker 0.16 on PostgreSQL: its own run() loop and SQL, a schema per
 * drill (its migrations, plus the harness's history trigger), the saga's
 * checkpoints beside the run, and dead workers' jobs freed by the drill's
 * coordinator through forceUnlockWorkers once their lock is older than the
 * drill's lease. The server is --pg-url, else QD_PG_URL, else the scenario's
 * pg_url, else postgres://postgres@127.0.0.1:5432/postgres.
 */
export const graphileAdapter: QueueAdapter = {
  name: 'graphile-worker',
  description: "graphile-worker on PostgreSQL: its own run() loop, job_key dedupe, no lease (the coordinator's forceUnlockWorkers after lease_ms)",
  version: `graphile-worker ${installedVersion()}`,
  capabilities: GRAPHILE_CAPABILITIES,
  soundness: 'observed',
  needs: ['pgUrl'],
  locatorKind: 'name',
  async preflight(servers) {
    await assertPgReachable(resolvePgUrl(servers.pgUrl));
  },
  async provision(request) {
    // graphile-worker loads only here and in connect: every process of every drill reads this registry, and most never use it.
    const { graphileSchemaFor, provisionSchema } = await import('./provision.js');
    const url = resolvePgUrl(request.servers.pgUrl);
    const schema = graphileSchemaFor(request.runId);
    try {
      await provisionSchema(url, schema, request.runDir);
    } catch (error) {
      // A half-made schema (migrated, no trigger) is never left behind.
      await dropSchema(url, schema).catch(() => {});
      throw error;
    }
    return {
      locator: schema,
      env: { QD_PG_URL: url },
      where: `${maskUrl(url)} schema ${schema}`,
      teardown: async ({ keep }) => {
        if (!keep) await dropSchema(url, schema);
      },
    };
  },
  async connect(locator, options) {
    await assertPgReachable(resolvePgUrl(options.servers?.pgUrl));
    const { connectGraphile } = await import('./connection.js');
    return connectGraphile(locator, options);
  },
  fit: (demands) => fitGraphile(demands),
};
