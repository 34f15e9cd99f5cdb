import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ServerSettings } from '../../port/adapter.js';
import { answeringAgain, assertOnThisMachine, ServerRestartError } from '../server-restart.js';
import { assertPgReachable, resolvePgUrl } from './connection.js';

const run = promisify(execFile);

/**
 * Restarts the PostgreSQL cluster a URL points at, the Debian way
 * (`pg_ctlcluster VERSION NAME restart`), and waits until it answers again.
 * Only a server on this machine, found by its port among `pg_lsclusters`:
 * the harness never restarts a server it cannot see.
 */
export async function restartPostgres(url: string): Promise<string> {
  const parsed = assertOnThisMachine(url, 'PostgreSQL');
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
  await answeringAgain(() => assertPgReachable(url), started);
  return `PostgreSQL ${version}/${name} on port ${port} restarted, answering again after ${Date.now() - started} ms`;
}

/** The restart_server fault of every queue that lives in PostgreSQL (the reference's, pg-boss, graphile-worker): its server, restarted. */
export function restartPostgresServer(servers: ServerSettings): Promise<string> {
  return restartPostgres(resolvePgUrl(servers.pgUrl));
}
