import { ownerMarkHere } from '../../adapters/leftovers/owner-mark.js';
import { assertPgReachable, maskUrl, resolvePgUrl } from '../../adapters/pg/connection.js';
import { holdOwnerComment } from '../../adapters/pg/owner-comment.js';
import { createSchema, dropSchema, schemaNameFor } from '../../adapters/pg/provision.js';
import { restartPostgresServer } from '../../adapters/pg/restart-server.js';
import { toolVersion } from '../../kernel/version.js';
import type { ConnectOptions, QueueAdapter, QueueConnection } from '../../port/adapter.js';
import type { LeaseStore } from '../lease-store.js';
import { referenceCapabilities } from '../reference-capabilities.js';
import { referenceConnection } from '../reference-connection.js';
import type { PgQueueLocation } from './pg-lease-store.js';
import { SCHEMA_SQL } from './schema.js';

/** The environment variable the drill's processes find the server in (never their command line: a URL may carry a password). */
const URL_ENV = 'QD_PG_URL';

/**
 * The reference queue on PostgreSQL: the same states, fenced writes, history
 * and review rules as on SQLite, with claims by FOR UPDATE SKIP LOCKED and
 * every time from the server's clock. Each drill gets its own schema, dropped
 * after the run unless kept; the server is --pg-url, else QD_PG_URL, else the
 * scenario's pg_url, else postgres://postgres@127.0.0.1:5432/postgres.
 */
export const postgresAdapter: QueueAdapter = {
  name: 'postgres',
  description: 'the reference queue on PostgreSQL: a schema per drill, claims by FOR UPDATE SKIP LOCKED, times from the server clock',
  version: `queue-drill ${toolVersion()} (PostgreSQL)`,
  capabilities: referenceCapabilities('server'),
  soundness: 'sound',
  locatorKind: 'name',
  needs: ['pgUrl'],
  // Every write is a transaction (pg-lease-store.ts); a complete's is the one that sets the job done.
  // A done goes out as one statement (./sql/complete.ts, ./sql/complete-and-claim.ts: it commits as it runs), or, where
  // that matched nothing, as the COMMIT of a transaction that wrote it; either holds the done's own assignment.
  wireRequests: { complete: { command: ['WITH held AS', 'COMMIT'], within: "status = 'done', result_digest" } },
  async preflight(servers) {
    await assertPgReachable(resolvePgUrl(servers.pgUrl));
  },
  async provision(request) {
    const url = resolvePgUrl(request.servers.pgUrl);
    const schema = schemaNameFor(request.runId);
    // Marked as this drill's, so `queue-drill clean` takes it if this process dies before its teardown.
    const owner = ownerMarkHere('postgres', request.runDir);
    await createSchema(url, schema, SCHEMA_SQL, owner);
    const mark = holdOwnerComment(url, { kind: 'SCHEMA', name: schema }, owner);
    return {
      locator: schema,
      env: { [URL_ENV]: url },
      where: `${maskUrl(url)} schema ${schema}`,
      teardown: async ({ keep }) => {
        await mark.end({ keep });
        if (!keep) await dropSchema(url, schema);
      },
    };
  },
  restartServer: restartPostgresServer,
  connect: (locator, options) =>
    connectPgStore(locator, options, async (location, storeOptions) => {
      // Loaded here: the driver it needs costs every process on another queue start-up time (the registry imports this file).
      const { PgLeaseStore } = await import('./pg-lease-store.js');
      return new PgLeaseStore(location, storeOptions);
    }),
};

/** Connects to the reference's queue on PostgreSQL through the store `open` makes (the reference's, or a broken variant's). */
export async function connectPgStore(
  locator: string,
  options: ConnectOptions,
  open: (location: PgQueueLocation, options: ConnectOptions) => Promise<LeaseStore>,
): Promise<QueueConnection> {
  const url = resolvePgUrl(options.servers?.pgUrl);
  // A server that does not answer is one line naming it, not a driver's stack trace at the first query.
  await assertPgReachable(url);
  return referenceConnection(await open({ url, schema: locator }, options), { leaseMs: options.leaseMs });
}
