import { describe, expect, it } from 'vitest';
import { loadOneQueue, SHIPPED_QUEUES } from '../../src/queues/load-one-queue.js';
import { QUEUE_IMPLS, queueImpl } from '../../src/queues/registry.js';

describe('loadOneQueue', () => {
  it('loads, for every name and alias the registry knows, the implementation the registry gives', async () => {
    for (const impl of QUEUE_IMPLS) {
      for (const name of [impl.name, ...(impl.aliases ?? [])]) {
        const loaded = await loadOneQueue(name);
        expect(loaded.name, name).toBe(impl.name);
        expect(loaded.aliases ?? [], name).toEqual(impl.aliases ?? []);
        expect(loaded.reference, name).toBe(impl.reference);
        expect(loaded.soundness, name).toBe(impl.soundness);
        expect(Object.keys(loaded).sort(), name).toEqual(Object.keys(impl).sort());
      }
    }
  });

  it('names, as shipped, exactly the registry names and aliases of the queues it loads alone', async () => {
    for (const shipped of SHIPPED_QUEUES) {
      const loaded = await shipped.load();
      expect(shipped.names).toEqual([loaded.name, ...(loaded.aliases ?? [])]);
      expect(queueImpl(loaded.name).name).toBe(loaded.name);
    }
  });

  it('refuses a name no queue has, as the registry does', async () => {
    await expect(loadOneQueue('no-such-queue')).rejects.toThrow(/unknown queue implementation "no-such-queue"/);
  });
});
