import { createRequire } from 'node:module';
import type { QueueAdapter } from '../../port/adapter.js';
import { assertPgReachable, resolvePgUrl } from '../pg/connection.js';
import { restartPostgresServer } from '../pg/restart-server.js';
import { fitPgBoss } from './fit.js';
import { MIN_EXPIRE_SECONDS, pgBossRetryPolicy } from './mapping.js';

/** The installed pg-boss's version, from its own package.json. */
function pgBossVersion(): string {
  const pkg = createRequire(import.meta.url)('pg-boss/package.json') as { version: string };
  return `pg-boss ${pkg.version}`;
}

/**
 * pg-boss 10 on PostgreSQL, as its users run it: send() with a job id derived
 * from the key, work() with pg-boss's own polling loop, maintenance in a
 * supervising instance taking expired jobs back. Each drill gets its own
 * pg-boss schema (pg-boss's tables, plus a history trigger the harness
 * installs), dropped after the run unless kept; the server is --pg-url, else
 * QD_PG_URL, else the scenario's pg_url, else the local default.
 */
export const pgBossAdapter: QueueAdapter = {
  name: 'pg-boss',
  description: 'pg-boss 10 (PostgreSQL): its own work() loop and maintenance, a job id per key for dedupe, a harness trigger for history',
  // Read when asked (a report, `queues`), not when the registry loads: every drill process loads it.
  get version() {
    return pgBossVersion();
  },
  capabilities: {
    evidence: {
      // The trigger's rows are written by the database at each change of pg-boss's job table, never by a process of the drill.
      history: true,
      refusals:
        'pg-boss 10 refuses nothing a stale holder writes: complete matches any active job by id, ' +
        'fail any job not yet completed, with no token and no worker',
      // retry_count + 1 grows with every fetch and the delivery carries it (the saga file and the world fence by it),
      // but pg-boss's own writes do not: the promise `epoch` makes is about every write, so it is not made.
      epoch: 'pg-boss 10 counts fetches (retry_count) but its writes do not carry the count: complete and fail match by job id alone',
      holder: 'pg-boss 10 stores no worker identity on a job: who holds an active job, it cannot say',
      digest: true,
      review: true,
      'retry-policy': true,
      renewals:
        "pg-boss 10's own work() loop fetches and holds each job (its expireIn runs from the fetch); the drill's worker, handed the job " +
        'after that, sees no grant of a lease to tell the harness',
    },
    fencing: 'pg-boss 10 fences no write: complete matches any active job by id, fail any job not yet completed, with no token',
    sagaStore: 'beside-the-run',
    takeover: 'queue',
    compensation: 'pg-boss 10 has no compensating state: a job out of retries is failed, with nothing to hand it to a compensator',
    clock: 'server',
  },
  soundness: 'observed',
  locatorKind: 'name',
  needs: ['pgUrl'],
  async preflight(servers) {
    await assertPgReachable(resolvePgUrl(servers.pgUrl));
  },
  // pg-boss loads only here and in connect: every process of every drill reads this registry, and most never use it.
  provision: async (request) => (await import('./provision.js')).provisionPgBoss(request),
  // pg-boss lives in PostgreSQL: the server restart cuts its workers' and its supervisor's connections.
  restartServer: restartPostgresServer,
  connect: async (locator, options) => (await import('./connection.js')).connectPgBoss(locator, options),
  retryPolicyFor: pgBossRetryPolicy,
  fit: (demands) => fitPgBoss(demands),
  shortestLease: {
    ms: MIN_EXPIRE_SECONDS * 1000,
    why: `pg-boss 10's expireInSeconds counts whole seconds, at least ${MIN_EXPIRE_SECONDS}`,
  },
};
