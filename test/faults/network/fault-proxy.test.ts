import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultProxy, type ProxyEvent } from '../../../src/faults/network/fault-proxy.js';
import type { WireProtocol } from '../../../src/faults/network/wire-framing.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { REDIS_URL, skipWithoutRedis } from '../../helpers/redis.js';
import { within } from '../../helpers/within.js';

/*
 * The fault proxy between a client and a real server: unchanged when no fault
 * is on (thousands of statements and commands, a payload of a megabyte), and
 * each fault doing what it says, with its events.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function proxyTo(url: string, events: ProxyEvent[] = [], seed = 1, protocol?: WireProtocol): Promise<{ proxy: FaultProxy; url: string }> {
  const target = new URL(url);
  const proxy = await FaultProxy.start(
    { host: target.hostname, port: Number(target.port) },
    { clock: systemClock(), random: seededRandom(seed), onEvent: (event) => events.push(event), ...(protocol ? { protocol } : {}) },
  );
  cleanup.push(() => proxy.close());
  target.hostname = '127.0.0.1';
  target.port = String(proxy.port);
  return { proxy, url: target.toString() };
}

function redisThrough(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  client.on('error', () => {});
  cleanup.push(() => client.disconnect());
  return client;
}

describe('the fault proxy', () => {
  it('draws the same jitter from the same seed', async () => {
    const delays = async (seed: number) => {
      const { proxy } = await proxyTo(REDIS_URL, [], seed);
      proxy.setLatency(10, 50);
      return Array.from({ length: 20 }, () => proxy.delayMs());
    };
    const first = await delays(7);
    expect(await delays(7)).toEqual(first);
    expect(await delays(8)).not.toEqual(first);
    expect(first.every((ms) => ms >= 10 && ms <= 60)).toBe(true);
  });

  it.skipIf(skipWithoutPg('the fault proxy on PostgreSQL'))(
    'passes a PostgreSQL connection through unchanged: 3000 statements and a megabyte',
    async () => {
      const events: ProxyEvent[] = [];
      // Framing on: the proxy reads every message, and must change none.
      const { url } = await proxyTo(PG_URL, events, 1, 'postgres');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      cleanup.push(() => client.end());
      for (let n = 0; n < 3000; n++) {
        const { rows } = await client.query<{ v: number }>('SELECT $1::int + 1 AS v', [n]);
        expect(rows[0]!.v).toBe(n + 1);
      }
      const big = 'x'.repeat(1024 * 1024);
      const { rows } = await client.query<{ v: string }>('SELECT $1::text AS v', [big]);
      expect(rows[0]!.v).toBe(big);
      expect(events.map((e) => e.kind)).toEqual(['connected']);
    },
  );

  it.skipIf(skipWithoutRedis('the fault proxy on Redis'))(
    'passes a Redis connection through unchanged: 3000 pipelined and 500 sequential commands',
    async () => {
      const { url } = await proxyTo(REDIS_URL, [], 1, 'resp');
      const client = redisThrough(url);
      await client.connect();
      const key = `qd-proxy-test-${process.pid}`;
      cleanup.push(async () => {
        const plain = new Redis(REDIS_URL);
        await plain.del(key);
        plain.disconnect();
      });
      const pipeline = client.pipeline();
      for (let n = 0; n < 3000; n++) pipeline.rpush(key, String(n));
      await pipeline.exec();
      expect(await client.llen(key)).toBe(3000);
      expect((await client.lrange(key, 0, -1)).map(Number)).toEqual(Array.from({ length: 3000 }, (_, n) => n));
      for (let n = 0; n < 500; n++) expect(await client.echo(`m${n}`)).toBe(`m${n}`);
    },
  );

  it.skipIf(skipWithoutRedis('the fault proxy on Redis'))(
    'holds everything in a partition, closes nothing, and lets it through once healed',
    async () => {
      const events: ProxyEvent[] = [];
      const { proxy, url } = await proxyTo(REDIS_URL, events);
      const client = redisThrough(url);
      await client.connect();
      expect(await client.ping()).toBe('PONG');
      proxy.partition();
      const ping = client.ping();
      expect(await within(ping, 300)).toBe('pending');
      expect(proxy.open).toBe(1);
      proxy.heal();
      expect(await ping).toBe('PONG');
      expect(events.map((e) => e.kind)).toEqual(['connected', 'partitioned', 'healed']);
      expect(events.at(-1)!.detail).toMatch(/^\d+ bytes held go through$/);
      expect(Number(events.at(-1)!.detail.split(' ')[0])).toBeGreaterThan(0);
    },
  );

  it.skipIf(skipWithoutRedis('the fault proxy on Redis'))('heals a partition given a duration by itself', async () => {
    const { proxy, url } = await proxyTo(REDIS_URL);
    const client = redisThrough(url);
    await client.connect();
    proxy.partition(200);
    const started = Date.now();
    expect(await client.ping()).toBe('PONG');
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    expect(proxy.partitioned).toBe(false);
  });

  it.skipIf(skipWithoutRedis('the fault proxy on Redis'))('delays each direction by the latency, in order', async () => {
    const events: ProxyEvent[] = [];
    const { proxy, url } = await proxyTo(REDIS_URL, events);
    const client = redisThrough(url);
    await client.connect();
    proxy.setLatency(100);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => client.echo(`e${n}`)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(answers).toEqual(Array.from({ length: 20 }, (_, n) => `e${n}`));
    proxy.setLatency(0);
    expect(events.filter((e) => e.kind === 'latency').map((e) => e.detail)).toEqual(['100 ms each way', 'none']);
  });

  it.skipIf(skipWithoutRedis('the fault proxy on Redis'))('resets every connection: the client sees its connection reset', async () => {
    const events: ProxyEvent[] = [];
    const { proxy, url } = await proxyTo(REDIS_URL, events);
    const client = redisThrough(url);
    await client.connect();
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    proxy.partition();
    const ping = client.ping().catch((error: unknown) => error);
    proxy.reset();
    await ended;
    expect(await ping).toBeInstanceOf(Error);
    expect(proxy.open).toBe(0);
    expect(events.map((e) => e.kind)).toEqual(['connected', 'partitioned', 'reset', 'closed']);
    expect(events[2]!.detail).toBe('connections 1');
  });

  it.skipIf(skipWithoutPg('the fault proxy on PostgreSQL'))(
    "drops the reply to one transaction's COMMIT: the row is committed, the client hears only that its connection was cut",
    async () => {
      const events: ProxyEvent[] = [];
      const { proxy, url } = await proxyTo(PG_URL, events, 1, 'postgres');
      const direct = new pg.Client({ connectionString: PG_URL });
      await direct.connect();
      const table = `qd_proxy_drop_${process.pid}`;
      await direct.query(`CREATE TABLE ${table} (id int primary key, status text)`);
      cleanup.push(async () => {
        await direct.query(`DROP TABLE IF EXISTS ${table}`);
        await direct.end();
      });
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      const dropped: string[] = [];
      proxy.dropReply(
        (request) => request.name === 'COMMIT' && request.context.includes("'done'"),
        (what) => dropped.push(what),
      );
      // A transaction that does not match goes through untouched.
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${table} VALUES (1, 'running')`);
      await client.query('COMMIT');
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${table} VALUES (2, $1)`, ['x']);
      await client.query(`UPDATE ${table} SET status = 'done' WHERE id = 1`);
      await expect(client.query('COMMIT')).rejects.toThrow();
      const { rows } = await direct.query(`SELECT id, status FROM ${table} ORDER BY id`);
      expect(rows).toEqual([
        { id: 1, status: 'done' },
        { id: 2, status: 'x' },
      ]);
      expect(dropped).toEqual(['connection 1: the reply to COMMIT (18 bytes) swallowed, then the connection reset']);
      expect(events.filter((e) => e.kind === 'reply-dropped').map((e) => e.connection)).toEqual([1]);
      // One drop, taken: nothing more is armed.
      expect(proxy.disarmDrop()).toBe(false);
    },
  );

  it.skipIf(skipWithoutRedis('the fault proxy on Redis'))(
    'drops the reply to one pipelined command: the replies before it arrive, it ran, and the connection is cut',
    async () => {
      const { proxy, url } = await proxyTo(REDIS_URL, [], 1, 'resp');
      const client = redisThrough(url);
      await client.connect();
      const key = `qd-proxy-drop-${process.pid}`;
      const direct = new Redis(REDIS_URL);
      cleanup.push(async () => {
        await direct.del(key);
        direct.disconnect();
      });
      await direct.set(key, '5');
      proxy.dropReply(
        (request) => request.name === 'INCR',
        () => {},
      );
      const [before, incr] = [client.get(key), client.incr(key).catch((error: unknown) => error)];
      expect(await before).toBe('5');
      expect(await incr).toBeInstanceOf(Error);
      expect(await direct.get(key)).toBe('6');
    },
  );

  it('cannot drop a reply without knowing the protocol, and takes back a drop no request met', async () => {
    const { proxy } = await proxyTo(REDIS_URL);
    expect(() =>
      proxy.dropReply(
        () => true,
        () => {},
      ),
    ).toThrow(/no protocol/);
    const { proxy: framed } = await proxyTo(REDIS_URL, [], 1, 'resp');
    framed.dropReply(
      () => true,
      () => {},
    );
    expect(framed.disarmDrop()).toBe(true);
    expect(framed.disarmDrop()).toBe(false);
  });
});
