import { join } from 'node:path';
import type { ServerSettings } from '../../port/adapter.js';
import { LOCAL_SERVERS } from '../../port/servers.js';

/** The environment variable that tells a drill process where a `process:` queue's saga file is, when its locator is not a file. */
export const SAGA_FILE_ENV = 'QD_PROCESS_SAGA_FILE';

/**
 * Where the saga's checkpoints of a `process:` queue live beside the run: a
 * file beside the queue's own when its locator is a file, else (a schema, a
 * key prefix on a server: protocol 2) a file in the run directory.
 */
export function sagaFileFor(locator: string, runDir?: string, locatorKind: 'file' | 'name' = 'file'): string {
  return locatorKind === 'name' && runDir !== undefined ? join(runDir, 'queue.saga.db') : `${locator}.saga.db`;
}

/** What the drill's processes are told of a saga file not beside a file locator. */
export function sagaFileEnv(file: string): Record<string, string> {
  return { [SAGA_FILE_ENV]: file };
}

/**
 * The saga file a connecting process opens: the one its environment names
 * (protocol 2, a name locator: a drill process's own environment, or the
 * provisioned one a harness connection is given), else beside the locator.
 */
export function sagaFileOf(locator: string, env: NodeJS.ProcessEnv = process.env): string {
  return env[SAGA_FILE_ENV] ?? sagaFileFor(locator);
}

/**
 * The servers as a protocol 2 child reads them: snake_case, each the one given
 * or else the local server, as the built-in queues fall back to it (a URL may
 * carry a password: never logged).
 */
export function serversOnTheWire(servers: ServerSettings): Record<string, string> {
  return { pg_url: nonEmpty(servers.pgUrl) ?? LOCAL_SERVERS.pgUrl, redis_url: nonEmpty(servers.redisUrl) ?? LOCAL_SERVERS.redisUrl };
}

function nonEmpty(url: string | undefined): string | undefined {
  return url === undefined || url === '' ? undefined : url;
}
