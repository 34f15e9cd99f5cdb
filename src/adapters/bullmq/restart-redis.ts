import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { answeringAgain, assertOnThisMachine } from '../server-restart.js';
import { assertRedisReachable, maskRedisUrl, openRedis } from './redis.js';

const run = promisify(execFile);

/** What the running server was started with, read from it: so it comes back as it was, where it was. */
async function startedWith(url: string): Promise<{ executable: string; args: string[] }> {
  const client = openRedis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const setting = async (name: string): Promise<string> => ((await client.config('GET', name)) as string[])[1] ?? '';
    const info = await client.info('server');
    const listed = /^executable:(.*)$/m.exec(info)?.[1]?.trim();
    const executable = listed && existsSync(listed) ? listed : 'redis-server';
    const args = ['--daemonize', 'yes', '--port', await setting('port'), '--bind', ...(await setting('bind')).split(' ').filter(Boolean)];
    for (const name of ['dir', 'dbfilename', 'save', 'appendonly', 'appendfilename']) args.push(`--${name}`, await setting(name));
    return { executable, args };
  } finally {
    client.disconnect();
  }
}

/**
 * Restarts the Redis a URL points at, as an operator would restart it
 * gracefully: SHUTDOWN SAVE (the dataset written to its dump file, as
 * PostgreSQL's restart checkpoints), then the same server started again with
 * the settings it had (read from it), and waits until it answers. A server
 * with no persistence configured still keeps its data across the restart, so
 * no job is lost to how this machine's Redis happens to be set up. Only a
 * server on this machine: the harness never restarts a server it cannot see.
 */
export async function restartRedis(url: string): Promise<string> {
  assertOnThisMachine(url, 'Redis');
  const { executable, args } = await startedWith(url);
  const started = Date.now();
  const client = openRedis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await client.connect();
    // The server closes the connection as it goes: the command's own answer is that error.
    await client.call('SHUTDOWN', 'SAVE').catch(() => undefined);
  } finally {
    client.disconnect();
  }
  await run(executable, args);
  await answeringAgain(() => assertRedisReachable(url), started);
  return `Redis at ${maskRedisUrl(url)} restarted (SHUTDOWN SAVE, then started as it was), answering again after ${Date.now() - started} ms`;
}
