import { join } from 'node:path';
import type { LeaseStore, LeaseStoreOptions } from '../../src/reference/lease-store.js';
import { SqliteLeaseStore } from '../../src/reference/sqlite/sqlite-lease-store.js';
import { SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { describeLeaseStore } from './lease-store-behaviour.js';

// The SQLite reference store through the same behaviour suite as PostgreSQL's: one file, several connections to it.
describeLeaseStore('SqliteLeaseStore', async (options) => {
  const run = tempRunDir('lease-store');
  const file = join(run.dir, 'queue.db');
  const stores: LeaseStore[] = [];
  const open = (extra: Partial<LeaseStoreOptions> = {}) => {
    const store = new SqliteLeaseStore(SqliteQueue.open(file, { ...options, ...extra }));
    stores.push(store);
    return store;
  };
  return {
    store: open(),
    connect: async (extra) => open(extra),
    close: async () => {
      for (const store of stores) await store.close();
      run.remove();
    },
  };
});
