import { join } from 'node:path';
import { Queue } from 'bullmq';
import PgBoss from 'pg-boss';
import { deletePrefix, prefixFor } from '../../adapters/bullmq/provision.js';
import { openRedis, resolveRedisUrl } from '../../adapters/bullmq/redis.js';
import { resolvePgUrl, withPgClient } from '../../adapters/pg/connection.js';
import { quoteIdent } from '../../adapters/pg/identifier.js';
import { dropSchema, schemaNameFor } from '../../adapters/pg/provision.js';
import { jobIdForKey } from '../../adapters/pg-boss/job-id.js';
import { dropPgBossSchema } from '../../adapters/pg-boss/provision.js';
import { pgBossSchemaFor } from '../../adapters/pg-boss/schema-name.js';
import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { openSqliteQueue, queueImpl } from '../../queues/registry.js';
import { openStore } from '../../reference/sqlite/store.js';
import type { ThroughputTarget } from './child-spec.js';
import { BULLMQ_BENCH_QUEUE } from './work-bullmq.js';
import { PGBOSS_BENCH_QUEUE } from './work-pgboss.js';
import { POSTGRES_RAW_TABLE_SQL } from './work-postgres-raw.js';
import { SQLITE_RAW_TABLE_SQL } from './work-sqlite-raw.js';

/** A target made ready for one cell: where its children connect, what they need in their environment, and its removal. */
export interface PreparedTarget {
  locator: string;
  env: Readonly<Record<string, string>>;
  teardown(): Promise<void>;
}

/** What preparing a target for one cell needs to know. */
export interface PrepareRequest {
  /** The cell's own directory (a SQLite file goes here: the same file system for the queue and its raw rate). */
  dir: string;
  /** Unique among every cell of every run (a schema or a key prefix is made from it). */
  runId: string;
  /** The jobs waiting when the children are let go. */
  backlog: number;
  /** How many children (a raw target gives each a row of its own). */
  workers: number;
}

/** One thing the throughput family measures: a queue with its backlog, or the raw write rate it is held against. */
export interface TargetDefinition {
  target: ThroughputTarget;
  /** What it runs on, which names the server it needs. */
  store: 'sqlite' | 'postgres' | 'redis';
  kind: 'queue' | 'raw';
  /** A queue: the write transactions it makes per job (a claim and a complete); a raw rate is divided by its queue's. */
  transactionsPerJob: number;
  prepare(request: PrepareRequest): Promise<PreparedTarget>;
}

/** The key of the n-th no-op job (one key each: the backlog is n different jobs). */
const jobKey = (n: number) => `bench-${n}`;

/** The reference queue on a SQLite file in the cell's directory, its backlog enqueued through the queue itself in one transaction. */
const sqliteQueue: TargetDefinition = {
  target: 'sqlite-queue',
  store: 'sqlite',
  kind: 'queue',
  transactionsPerJob: 2,
  async prepare(request) {
    const provisioned = await queueImpl('reference').provision({ runDir: request.dir, runId: request.runId, servers: {} });
    const queue = openSqliteQueue('reference', provisioned.locator, { clock: systemClock(), random: seededRandom(1) });
    try {
      queue.db.transaction(() => {
        for (let n = 0; n < request.backlog; n++) queue.enqueue({ key: jobKey(n), action: 'noop', payload: '{}' });
      })();
    } finally {
      queue.close();
    }
    return { locator: provisioned.locator, env: provisioned.env, teardown: () => provisioned.teardown({ keep: false }) };
  },
};

/** Raw write transactions on a SQLite file beside where the queue's would be, opened as the queue opens its own. */
const sqliteRaw: TargetDefinition = {
  target: 'sqlite-raw',
  store: 'sqlite',
  kind: 'raw',
  transactionsPerJob: sqliteQueue.transactionsPerJob,
  async prepare(request) {
    const file = join(request.dir, 'raw.db');
    const db = openStore(file, { schema: SQLITE_RAW_TABLE_SQL });
    try {
      const insert = db.prepare('INSERT INTO bench_raw (id, n) VALUES (?, 0)');
      for (let id = 0; id < request.workers; id++) insert.run(id);
    } finally {
      db.close();
    }
    return { locator: file, env: {}, teardown: async () => undefined };
  },
};

// The backlog as the store's enqueue writes it (a job, pending, and its creation in the history), set-based: setting up is not measured.
const PG_SEED = `
INSERT INTO agent_jobs (idempotency_key, action, payload_json, max_attempts, next_run_at, created_at, updated_at)
SELECT 'bench-' || (n - 1), 'noop', '{}', 3, clock_timestamp(), clock_timestamp(), clock_timestamp() FROM generate_series(1, $1::int) AS n;
`;
const PG_SEED_HISTORY = `
INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at)
SELECT id, 'transition', NULL, 'pending', 0, 0, NULL, 'producer', 'enqueued', created_at FROM agent_jobs ORDER BY id`;

/** The reference queue in a PostgreSQL schema of its own, provisioned by its adapter; its planner statistics taken, as autovacuum would. */
const postgresQueue: TargetDefinition = {
  target: 'postgres-queue',
  store: 'postgres',
  kind: 'queue',
  transactionsPerJob: 2,
  async prepare(request) {
    const provisioned = await queueImpl('postgres').provision({ runDir: request.dir, runId: request.runId, servers: {} });
    await withPgClient(resolvePgUrl(), async (client) => {
      await client.query(`SET search_path TO ${quoteIdent(provisioned.locator)}`);
      await client.query(PG_SEED, [request.backlog]);
      await client.query(PG_SEED_HISTORY);
      await client.query('ANALYZE agent_jobs; ANALYZE agent_job_events');
    });
    return { locator: provisioned.locator, env: provisioned.env, teardown: () => provisioned.teardown({ keep: false }) };
  },
};

/** Raw write transactions on the same PostgreSQL server, in a schema of the cell's own. */
const postgresRaw: TargetDefinition = {
  target: 'postgres-raw',
  store: 'postgres',
  kind: 'raw',
  transactionsPerJob: postgresQueue.transactionsPerJob,
  async prepare(request) {
    const url = resolvePgUrl();
    const schema = schemaNameFor(`bench raw ${request.runId}`);
    await withPgClient(url, async (client) => {
      await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
      await client.query(`SET search_path TO ${quoteIdent(schema)}`);
      await client.query(POSTGRES_RAW_TABLE_SQL);
      await client.query('INSERT INTO bench_raw (id, n) SELECT id, 0 FROM generate_series(0, $1::int - 1) AS id', [request.workers]);
    });
    return { locator: schema, env: { QD_PG_URL: url }, teardown: () => dropSchema(url, schema) };
  },
};

/** How many jobs one pg-boss insert carries (one statement each: pg-boss turns the array into rows on the server). */
const PGBOSS_INSERT_CHUNK = 5_000;

/**
 * pg-boss on the same PostgreSQL server, in a schema of the cell's own (named
 * as the drill's adapter names them: pg-boss allows 50 characters), made by
 * pg-boss's own migration, with a standard queue; its backlog inserted in bulk
 * through pg-boss's own insert (pg-boss's defaults on each job; its id made
 * from its key, as the adapter makes it), and its planner statistics taken, as
 * for the reference. A job is pg-boss's fetch and its complete: two transactions.
 */
const pgboss: TargetDefinition = {
  target: 'pgboss',
  store: 'postgres',
  kind: 'queue',
  transactionsPerJob: 2,
  async prepare(request) {
    const url = resolvePgUrl();
    const schema = pgBossSchemaFor(`bench ${request.runId}`);
    try {
      await seedPgboss(url, schema, request.backlog);
      await withPgClient(url, (client) => client.query(`ANALYZE ${quoteIdent(schema)}.job`));
    } catch (error) {
      await dropPgBossSchema(url, schema).catch(() => undefined);
      throw error;
    }
    return { locator: schema, env: { QD_PG_URL: url }, teardown: () => dropPgBossSchema(url, schema) };
  },
};

/** pg-boss's schema made, its queue created, and `backlog` jobs inserted, by a pg-boss instance that neither maintains nor schedules. */
async function seedPgboss(url: string, schema: string, backlog: number): Promise<void> {
  const boss = new PgBoss({ connectionString: url, schema, application_name: 'queue-drill bench', supervise: false, schedule: false });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    await boss.createQueue(PGBOSS_BENCH_QUEUE, { name: PGBOSS_BENCH_QUEUE, policy: 'standard' });
    for (let n = 0; n < backlog; n += PGBOSS_INSERT_CHUNK) {
      const size = Math.min(PGBOSS_INSERT_CHUNK, backlog - n);
      await boss.insert(Array.from({ length: size }, (_, i) => ({ id: jobIdForKey(jobKey(n + i)), name: PGBOSS_BENCH_QUEUE, data: {} })));
    }
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

/** BullMQ on the local Redis, under a key prefix of the cell's own, its backlog added in bulk. */
const bullmq: TargetDefinition = {
  target: 'bullmq',
  store: 'redis',
  kind: 'queue',
  transactionsPerJob: 1,
  async prepare(request) {
    const url = resolveRedisUrl();
    const prefix = prefixFor(`bench ${request.runId}`);
    const connection = openRedis(url);
    const queue = new Queue(BULLMQ_BENCH_QUEUE, { connection, prefix });
    try {
      for (let n = 0; n < request.backlog; n += 1000) {
        const size = Math.min(1000, request.backlog - n);
        await queue.addBulk(Array.from({ length: size }, (_, i) => ({ name: 'noop', data: {}, opts: { jobId: jobKey(n + i) } })));
      }
    } finally {
      await queue.close();
      connection.disconnect();
    }
    return { locator: prefix, env: { QD_REDIS_URL: url }, teardown: async () => void (await deletePrefix(url, prefix)) };
  },
};

/** Every target, in the order the table shows them. */
export const TARGET_DEFINITIONS: readonly TargetDefinition[] = [sqliteQueue, sqliteRaw, postgresQueue, postgresRaw, pgboss, bullmq];
