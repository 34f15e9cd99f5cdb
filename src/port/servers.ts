import type { ServerSettings } from './adapter.js';

/** Where the drills look for each server when nobody says: the local one (PostgreSQL with trust auth). */
export const LOCAL_SERVERS = {
  pgUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: 'redis://127.0.0.1:6379',
  amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
  natsUrl: 'nats://127.0.0.1:4222',
} as const satisfies Required<ServerSettings>;

/** The command line's server flags, as every command that touches a queue takes them. */
export interface ServerFlags {
  'pg-url'?: string | undefined;
  'redis-url'?: string | undefined;
  'amqp-url'?: string | undefined;
  'nats-url'?: string | undefined;
}

/** The server flags as settings (unset ones stay unset: the environment and the scenario fill them in later). */
export function serversFromFlags(flags: ServerFlags): ServerSettings {
  return { pgUrl: flags['pg-url'], redisUrl: flags['redis-url'], amqpUrl: flags['amqp-url'], natsUrl: flags['nats-url'] };
}

/**
 * Where each server is: the command line first, then the environment
 * (QD_PG_URL, QD_REDIS_URL, QD_AMQP_URL, QD_NATS_URL), then the scenario's own settings; an adapter
 * falls back to the server on 127.0.0.1 when all three are silent.
 */
export function resolveServers(
  flags: ServerSettings,
  scenario: { pg_url?: string | undefined; redis_url?: string | undefined; amqp_url?: string | undefined; nats_url?: string | undefined } = {},
  env: NodeJS.ProcessEnv = process.env,
): ServerSettings {
  return {
    pgUrl: flags.pgUrl ?? env.QD_PG_URL ?? scenario.pg_url,
    redisUrl: flags.redisUrl ?? env.QD_REDIS_URL ?? scenario.redis_url,
    amqpUrl: flags.amqpUrl ?? env.QD_AMQP_URL ?? scenario.amqp_url,
    natsUrl: flags.natsUrl ?? env.QD_NATS_URL ?? scenario.nats_url,
  };
}
