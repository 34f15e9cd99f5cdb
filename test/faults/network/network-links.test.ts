import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type LinkEvent, NetworkLinkError, NetworkLinks } from '../../../src/faults/network/network-links.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { REDIS_URL, skipWithoutRedis } from '../../helpers/redis.js';
import { within } from '../../helpers/within.js';

/*
 * Every process of a drill gets proxies of its own, one per server its queue
 * uses: its URLs rewritten (user, password, database and options kept), a
 * fault on one process's link felt by that process alone.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function open(env: Record<string, string>, processes: string[], events: LinkEvent[] = []): Promise<NetworkLinks> {
  const links = await NetworkLinks.open(env, processes, { clock: systemClock(), seed: 1, onEvent: (event) => events.push(event) });
  cleanup.push(() => links.close());
  return links;
}

describe('the network links of a drill', () => {
  it("rewrite each process's server URLs to proxies of its own, keeping the rest of each URL, and nothing else", async () => {
    const env = {
      QD_PG_URL: 'postgres://drill:s3cret@127.0.0.1:5432/queue?application_name=qd',
      QD_REDIS_URL: 'redis://127.0.0.1:6379/2',
      QD_QUEUE_OPTIONS: '{}',
    };
    const links = await open(env, ['w1', 'w2']);
    const w1 = links.envFor('w1');
    const w2 = links.envFor('w2');
    expect(Object.keys(w1).sort()).toEqual(['QD_PG_URL', 'QD_REDIS_URL']);
    expect(w1.QD_PG_URL).toMatch(/^postgres:\/\/drill:s3cret@127\.0\.0\.1:\d+\/queue\?application_name=qd$/);
    expect(w1.QD_REDIS_URL).toMatch(/^redis:\/\/127\.0\.0\.1:\d+\/2$/);
    const ports = [w1.QD_PG_URL, w1.QD_REDIS_URL, w2.QD_PG_URL, w2.QD_REDIS_URL].map((url) => new URL(url!).port);
    expect(new Set(ports).size).toBe(4);
    expect(ports).not.toContain('5432');
    expect(links.envFor('nobody')).toEqual({});
    expect(links.of('w1')?.servers).toEqual(['QD_PG_URL', 'QD_REDIS_URL']);
  });

  it('refuse a queue that names no server, and a server that is no TCP address', async () => {
    await expect(open({ QD_QUEUE_OPTIONS: '{}' }, ['w1'])).rejects.toThrow(NetworkLinkError);
    await expect(open({ QD_PG_URL: 'postgres:///queue?host=/var/run/postgresql' }, ['w1'])).rejects.toThrow(/names no host/);
  });

  it.skipIf(skipWithoutRedis('network links on Redis'))(
    "cut one process's link and leave the other's: w1 partitioned waits, w2 goes on; healed, w1's command lands",
    async () => {
      const events: LinkEvent[] = [];
      const links = await open({ QD_REDIS_URL: REDIS_URL }, ['w1', 'w2'], events);
      const client = (process: string) => {
        const redis = new Redis(links.envFor(process).QD_REDIS_URL!, { maxRetriesPerRequest: 0, retryStrategy: () => null });
        redis.on('error', () => {});
        cleanup.push(() => redis.disconnect());
        return redis;
      };
      const [w1, w2] = [client('w1'), client('w2')];
      expect(await w1.ping()).toBe('PONG');
      const healed = links.of('w1')!.partition(60_000);
      const held = w1.ping();
      expect(await w2.ping()).toBe('PONG');
      expect(await within(held, 200)).toBe('pending');
      links.of('w1')!.heal();
      await healed;
      expect(await held).toBe('PONG');
      expect(events.filter((e) => e.kind === 'partitioned' || e.kind === 'healed').map((e) => [e.process, e.server, e.kind])).toEqual([
        ['w1', 'QD_REDIS_URL', 'partitioned'],
        ['w1', 'QD_REDIS_URL', 'healed'],
      ]);
    },
  );

  it('take back a drop no request met, naming its rule, once', async () => {
    const links = await open({ QD_REDIS_URL: REDIS_URL, QD_AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672' }, ['w1']);
    links.of('w1')!.dropReply({ command: 'EVALSHA' }, 'f2');
    expect(links.unusedDrops()).toEqual(['f2']);
    expect(links.unusedDrops()).toEqual([]);
    const brokerOnly = await open({ QD_AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672' }, ['w1']);
    expect(() => brokerOnly.of('w1')!.dropReply({ command: 'x' }, 'f1')).toThrow(/no protocol the fault proxy frames/);
  });
});
