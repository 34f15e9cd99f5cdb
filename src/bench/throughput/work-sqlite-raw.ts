import { setImmediate } from 'node:timers/promises';
import { seededRandom } from '../../kernel/random.js';
import { DEFAULT_BUSY_POLICY, retryBusy } from '../../reference/sqlite/busy.js';
import { openStore } from '../../reference/sqlite/store.js';
import type { ChildSpec } from './child-spec.js';
import type { ChildWork } from './child-work.js';

/** How many transactions a raw child makes between two turns of its event loop. */
const YIELD_EVERY = 200;

/** The raw rate's table: one counter row per child, so what it measures is the write transaction, not a hot row. */
export const SQLITE_RAW_TABLE_SQL = 'CREATE TABLE IF NOT EXISTS bench_raw (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)';

/**
 * Raw SQLite write transactions, on a connection made as the queue makes its
 * own (the store's pragmas, the queue's wait for the write lock): BEGIN
 * IMMEDIATE, one UPDATE, COMMIT, `spec.transactions` times. The ceiling a
 * queue on this file system is held against.
 */
export async function openSqliteRawWork(spec: ChildSpec): Promise<ChildWork> {
  const db = openStore(spec.locator, { schema: SQLITE_RAW_TABLE_SQL });
  db.pragma(`busy_timeout = ${DEFAULT_BUSY_POLICY.sqliteTimeoutMs}`);
  const update = db.prepare('UPDATE bench_raw SET n = n + 1 WHERE id = ?');
  const once = db.transaction((id: number) => update.run(id));
  const busy = { policy: DEFAULT_BUSY_POLICY, random: seededRandom(process.pid) };
  return {
    async run(stop) {
      let units = 0;
      while (units < spec.transactions && !stop.aborted) {
        // A batch at a time, then a turn of the event loop, so the parent's SIGTERM is heard.
        const batch = Math.min(YIELD_EVERY, spec.transactions - units);
        for (let i = 0; i < batch; i++) retryBusy('raw update', () => once.immediate(spec.index), busy);
        units += batch;
        await setImmediate();
      }
      return { units, lastAt: units > 0 ? Date.now() : null };
    },
    async close() {
      db.close();
    },
  };
}
