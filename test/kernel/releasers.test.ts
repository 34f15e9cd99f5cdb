import { describe, expect, it } from 'vitest';
import { Releasers, withReleasers } from '../../src/kernel/releasers.js';

describe('Releasers', () => {
  it('releases last-added-first, each after the one before settled', async () => {
    const order: string[] = [];
    const releasers = new Releasers();
    releasers.add('ledger', () => void order.push('ledger'));
    releasers.add('server', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('server');
    });
    releasers.add('timer', () => void order.push('timer'));
    await releasers.releaseAll();
    expect(order).toEqual(['timer', 'server', 'ledger']);
  });

  it('attempts every release after one fails, and rethrows the first error', async () => {
    const order: string[] = [];
    const seen: string[] = [];
    const releasers = new Releasers((name) => seen.push(name));
    releasers.add('ledger', () => void order.push('ledger'));
    releasers.add('socket', () => {
      order.push('socket');
      throw new Error('socket failed second');
    });
    releasers.add('server', async () => {
      order.push('server');
      throw new Error('server failed first');
    });
    await expect(releasers.releaseAll()).rejects.toThrow('server failed first');
    expect(order).toEqual(['server', 'socket', 'ledger']);
    expect(seen).toEqual(['server', 'socket']);
  });

  it('rethrows a first error that is not an Error object', async () => {
    const releasers = new Releasers();
    releasers.add('odd', () => {
      throw undefined;
    });
    releasers.add('later', () => {
      throw new Error('second');
    });
    await expect(releasers.releaseAll()).rejects.toThrow('second');
    const only = new Releasers();
    only.add('odd', () => {
      throw undefined;
    });
    await expect(only.releaseAll()).rejects.toBeUndefined();
  });

  it('is idempotent: a second call releases nothing again and settles as the first did', async () => {
    let runs = 0;
    const releasers = new Releasers();
    releasers.add('once', () => void runs++);
    await releasers.releaseAll();
    await releasers.releaseAll();
    expect(runs).toBe(1);

    const failing = new Releasers();
    failing.add('broken', () => {
      runs++;
      throw new Error('broken');
    });
    await expect(failing.releaseAll()).rejects.toThrow('broken');
    await expect(failing.releaseAll()).rejects.toThrow('broken');
    expect(runs).toBe(2);
  });

  it('concurrent calls share one run', async () => {
    let runs = 0;
    const releasers = new Releasers();
    releasers.add('slow', async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
    await Promise.all([releasers.releaseAll(), releasers.releaseAll()]);
    expect(runs).toBe(1);
  });

  it('refuses a release added once releasing began', async () => {
    const releasers = new Releasers();
    const done = releasers.releaseAll();
    expect(() => releasers.add('late', () => undefined)).toThrow(expect.objectContaining({ code: 'QD_ALREADY_RELEASED' }));
    await done;
  });

  it('with nothing added, releases nothing and resolves', async () => {
    await expect(new Releasers().releaseAll()).resolves.toBeUndefined();
  });
});

describe('withReleasers', () => {
  it('returns fn’s result after releasing everything it added', async () => {
    const order: string[] = [];
    const result = await withReleasers(async (releasers) => {
      releasers.add('a', () => void order.push('a'));
      releasers.add('b', () => void order.push('b'));
      order.push('body');
      return 42;
    });
    expect(result).toBe(42);
    expect(order).toEqual(['body', 'b', 'a']);
  });

  it('rethrows a release error when fn succeeded', async () => {
    await expect(
      withReleasers(async (releasers) => {
        releasers.add('broken', () => {
          throw new Error('release failed');
        });
        return 1;
      }),
    ).rejects.toThrow('release failed');
  });

  it('when fn throws, still releases everything, and fn’s error wins over a release error', async () => {
    const order: string[] = [];
    const failed: string[] = [];
    await expect(
      withReleasers(
        async (releasers) => {
          releasers.add('ledger', () => void order.push('ledger'));
          releasers.add('server', () => {
            order.push('server');
            throw new Error('close failed');
          });
          throw new Error('listen failed');
        },
        (name) => failed.push(name),
      ),
    ).rejects.toThrow('listen failed');
    expect(order).toEqual(['server', 'ledger']);
    // The release error is not rethrown, but it is reported.
    expect(failed).toEqual(['server']);
  });
});
