import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { InputError } from '../../kernel/errors.js';
import type { ServerSettings } from '../../port/adapter.js';
import { assertPgReachable, resolvePgUrl } from './connection.js';

const run = promisify(execFile);

/** How long the restarted server may take to answer again. */
const BACK_WITHIN_MS = 30_000;

/** Thrown when the server cannot be restarted by the harness (not on this machine, not a cluster it can find). */
export class ServerRestartError extends InputError {
  readonly code = 'QD_SERVER_RESTART';
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Restarts the PostgreSQL cluster a URL points at, the Debian way
 * (`pg_ctlcluster VERSION NAME restart`), and waits until it answers again.
 * Only a server on this machine, found by its port among `pg_lsclusters`:
 * the harness never restarts a server it cannot see.
 */
export async function restartPostgres(url: string): Promise<string> {
  const parsed = new URL(url);
  if (!LOCAL_HOSTS.has(parsed.hostname)) throw new ServerRestartError(`restarts only a PostgreSQL on this machine, not one on ${parsed.hostname}`);
  const port = parsed.port === '' ? '5432' : parsed.port;
  const { stdout } = await run('pg_lsclusters', ['--no-header']);
  const cluster = stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[2] === port);
  if (!cluster) throw new ServerRestartError(`no PostgreSQL cluster of pg_lsclusters listens on port ${port}`);
  const [version, name] = cluster as [string, string];
  const started = Date.now();
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, 'restart']);
  for (;;) {
    try {
      await assertPgReachable(url);
      break;
    } catch (error) {
      if (Date.now() - started > BACK_WITHIN_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return `PostgreSQL ${version}/${name} on port ${port} restarted, answering again after ${Date.now() - started} ms`;
}

/** The restart_server fault of every queue that lives in PostgreSQL (the reference's, pg-boss, graphile-worker): its server, restarted. */
export function restartPostgresServer(servers: ServerSettings): Promise<string> {
  return restartPostgres(resolvePgUrl(servers.pgUrl));
}
