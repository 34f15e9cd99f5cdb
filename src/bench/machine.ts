import { createRequire } from 'node:module';
import os from 'node:os';
import Database from 'better-sqlite3';
import { openRedis, resolveRedisUrl } from '../adapters/bullmq/redis.js';
import { resolvePgUrl, withPgClient } from '../adapters/pg/connection.js';
import type { ServerCheck } from './servers.js';

/** What the figures were measured on: they mean nothing without it. */
export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGb: number;
  os: string;
  node: string;
  /** The libraries the queues under test run on, as installed. */
  libraries: Record<string, string>;
  sqlite: string;
  /** The servers' own versions, or null where one did not answer. */
  postgres: string | null;
  redis: string | null;
  /** The 1-, 5- and 15-minute load averages when the bench started: how busy the machine was with other work. */
  loadAverage: [number, number, number];
}

const LIBRARIES = ['better-sqlite3', 'pg', 'pg-boss', 'bullmq', 'ioredis'] as const;

/** The installed version of a package, or "unknown". */
function installed(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Describes this machine, and the servers that answered. */
export async function describeMachine(servers: ServerCheck): Promise<Machine> {
  const memory = new Database(':memory:');
  const sqlite = (memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  memory.close();
  const [one, five, fifteen] = os.loadavg();
  return {
    cores: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    libraries: Object.fromEntries(LIBRARIES.map((name) => [name, installed(name)])),
    sqlite,
    postgres: servers.postgres === null ? await postgresVersion() : null,
    redis: servers.redis === null ? await redisVersion() : null,
    loadAverage: [round(one ?? 0), round(five ?? 0), round(fifteen ?? 0)],
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

async function postgresVersion(): Promise<string | null> {
  try {
    return await withPgClient(
      resolvePgUrl(),
      async (client) => (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? null,
    );
  } catch {
    return null;
  }
}

async function redisVersion(): Promise<string | null> {
  const client = openRedis(resolveRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? null;
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}
