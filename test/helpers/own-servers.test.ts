import { existsSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  disposeOwnServers,
  type OwnServer,
  OwnServerError,
  portRefuses,
  serverRequired,
  skipWithoutOwnPostgres,
  skipWithoutOwnRedis,
  startOwnPostgres,
  startOwnRedis,
} from './own-servers.js';
import { isRunning, isStopped, processesMentioning } from './processes.js';

/*
 * Each kind of server of a test's own, through every operation a drill of
 * issue 22 will use, each shown by a real client: it answers, a frozen server
 * lets a query time out and answers it once thawed, a stopped one refuses, a
 * started one answers again (PostgreSQL with its data), a killed one is gone
 * to the last process, a disposed one leaves no process, dir or shared memory.
 */

/** How long a client waits on a frozen server before giving up. */
const SHORT_MS = 500;

/** One connection of a kind's own client, every command bounded by SHORT_MS. */
interface Session {
  put(value: string): Promise<void>;
  get(): Promise<string | undefined>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

async function pgSession(url: string): Promise<Session> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000, query_timeout: SHORT_MS });
  client.on('error', () => {});
  await client.connect();
  return {
    put: async (value) => {
      await client.query('CREATE TABLE IF NOT EXISTS kept (value text)');
      await client.query('INSERT INTO kept VALUES ($1)', [value]);
    },
    get: async () => (await client.query<{ value: string }>('SELECT value FROM kept')).rows[0]?.value,
    ping: async () => {
      await client.query('SELECT 1');
    },
    close: () => client.end(),
  };
}

async function redisSession(url: string): Promise<Session> {
  const client = new Redis(url, { lazyConnect: true, commandTimeout: SHORT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // ioredis rejects a failed connect with "Connection is closed."; the socket's own error says why.
  let cause: unknown;
  client.on('error', (error) => {
    cause = error;
  });
  await client.connect().catch((error: unknown) => {
    throw cause ?? error;
  });
  return {
    put: async (value) => {
      await client.set('kept', value);
    },
    get: async () => (await client.get('kept')) ?? undefined,
    ping: async () => {
      await client.ping();
    },
    close: async () => client.disconnect(),
  };
}

/** The SysV segments a set of processes created and left. */
function segmentsOf(pids: number[]): string[] {
  return readFileSync('/proc/sysvipc/shm', 'utf8')
    .split('\n')
    .slice(1)
    .filter((row) => pids.includes(Number(row.trim().split(/\s+/)[4])));
}

const kinds = [
  {
    what: 'PostgreSQL',
    skip: () => skipWithoutOwnPostgres('the PostgreSQL of a test its own'),
    start: startOwnPostgres,
    open: pgSession,
    keepsData: true,
    refused: /ECONNREFUSED/,
    timedOut: /timeout/i,
    // The postmaster and its background processes (checkpointer, writer, ...) at least.
    processes: 4,
  },
  {
    what: 'Redis',
    skip: () => skipWithoutOwnRedis('the Redis of a test its own'),
    start: startOwnRedis,
    open: redisSession,
    keepsData: false,
    refused: /ECONNREFUSED/,
    timedOut: /timed out/i,
    processes: 1,
  },
];

afterAll(() => disposeOwnServers());

for (const kind of kinds) {
  describe.skipIf(kind.skip())(`a ${kind.what} of a test's own`, () => {
    it('answers, times out frozen and answers thawed, refuses stopped, answers started again, and goes for good', async () => {
      const listeners = () => [process.listenerCount('exit'), process.listenerCount('SIGTERM')];
      const before = listeners();
      const server: OwnServer = await kind.start();
      expect(server.state).toBe('running');
      expect([5432, 6379]).not.toContain(server.port);
      expect(server.url).toContain(`127.0.0.1:${server.port}`);
      expect(server.pids().length).toBeGreaterThanOrEqual(kind.processes);

      const session = await kind.open(server.url);
      await session.put('survivor');
      expect(await session.get()).toBe('survivor');

      await server.freeze();
      expect(server.pids().filter((pid) => !isStopped(pid))).toEqual([]);
      await expect(session.ping()).rejects.toThrow(kind.timedOut);
      await expect(server.start()).rejects.toThrow(/frozen: thaw\(\) or stop\(\) it first/);
      // Frozen, not gone: the kernel still accepts the connection.
      expect(await portRefuses(server.port)).toBe(false);
      await server.thaw();
      expect(server.pids().filter(isStopped)).toEqual([]);
      await session.ping();
      await session.close();

      const beforeStop = server.pids();
      await server.stop();
      expect(server.state).toBe('stopped');
      expect(beforeStop.filter(isRunning)).toEqual([]);
      await expect(kind.open(server.url)).rejects.toThrow(kind.refused);

      await server.start();
      const again = await kind.open(server.url);
      expect(await again.get()).toBe(kind.keepsData ? 'survivor' : undefined);
      await again.close();

      const beforeKill = server.pids();
      await server.kill();
      expect(server.state).toBe('killed');
      expect(beforeKill.filter(isRunning)).toEqual([]);
      expect(await portRefuses(server.port)).toBe(true);
      expect(() => server.pid()).toThrow(/killed/);

      await server.dispose();
      await server.dispose();
      expect(server.state).toBe('disposed');
      expect(existsSync(server.dir)).toBe(false);
      expect(segmentsOf(beforeKill)).toEqual([]);
      expect(listeners()).toEqual(before);
    });

    it('is disposed of frozen, leaving no process, dir or shared memory', async () => {
      const server = await kind.start({ startStopMs: 20_000 });
      await server.restart();
      await server.freeze();
      const pids = server.pids();
      await server.dispose();
      expect(pids.filter(isRunning)).toEqual([]);
      expect(existsSync(server.dir)).toBe(false);
      expect(segmentsOf(pids)).toEqual([]);
      await expect(server.start()).rejects.toThrow(/disposed/);
    });
  });
}

describe.skipIf(skipWithoutOwnRedis('a server of its own that does not come up in time'))('a server of its own that does not come up in time', () => {
  it('fails naming what did not come up, with its log, and leaves nothing behind', async () => {
    const failure = await startOwnRedis({ startStopMs: 1 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OwnServerError);
    expect(failure).toMatchObject({ code: 'QD_OWN_SERVER_TIMEOUT' });
    const message = (failure as Error).message;
    expect(message).toMatch(/^Redis on port \d+ did not come up \(answer at redis:\/\/127\.0\.0\.1:\d+\) in time/);
    const dir = /its log \((.+)\/redis\.log\) ends:/.exec(message)?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir!)).toBe(false);
    expect(processesMentioning(dir!)).toEqual([]);
  });
});

describe('whether a server of its own must be startable (else the tests fail, not skip)', () => {
  it.each([
    [{}, false],
    [{ QD_REQUIRE_PG: '1' }, true],
    [{ CI: 'true' }, true],
    [{ CI: 'true', QD_REQUIRE_PG: '0' }, false],
    [{ CI: 'false' }, false],
    [{ QD_REQUIRE_REDIS: '1' }, false],
  ])('with %o: %s', (env, required) => {
    expect(serverRequired('QD_REQUIRE_PG', env)).toBe(required);
  });
});
