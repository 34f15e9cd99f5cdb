import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EnqueueCheckThenInsertQueue } from '../../src/adapters/enqueue-check-then-insert/enqueue-check-then-insert-queue.js';
import { createStoreWithoutUniqueKey } from '../../src/adapters/enqueue-check-then-insert/schema.js';
import { SqliteQueue, type EnqueueRequest } from '../../src/queue/sqlite-queue.js';
import { statement, type Db } from '../../src/queue/store.js';
import { storeFixture, type StoreFixture } from './fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

const REQUEST: EnqueueRequest = { key: 'same-key', action: 'charge', payload: { amount: 100 } };
// The job's insert (not the history's, agent_job_events).
const INSERT = /INSERT INTO agent_jobs \(/;

const CASES = [
  { name: 'reference', make: (db: Db, f: StoreFixture) => new SqliteQueue(db, f.options) },
  { name: 'enqueue-check-then-insert', make: (db: Db, f: StoreFixture) => new EnqueueCheckThenInsertQueue(db, f.options) },
] as const;

/** p1 enqueues a key; just before SQLite runs p1's insert, p2 (another connection) enqueues the same key. */
function race(name: (typeof CASES)[number]['name']) {
  const entry = CASES.find((c) => c.name === name)!;
  const p2Queue = fx.open(name); // makes the store, as the drill's first open does
  p2Queue.db.pragma('busy_timeout = 20');
  let p2: { created: boolean; jobId: number } | Error | undefined;
  const db = fx.traced((sql) => {
    if (p2 !== undefined || !INSERT.test(sql)) return;
    try {
      p2 = p2Queue.enqueue(REQUEST);
    } catch (error) {
      p2 = error as Error;
    }
  });
  const p1 = entry.make(db, fx).enqueue(REQUEST);
  if (p2 === undefined) throw new Error('the enqueue never reached its insert');
  return { p1, p2, queue: p2Queue };
}

const uniqueIndexes = (db: Db) =>
  (statement(db, `SELECT il.name, il."unique" AS u FROM pragma_index_list('agent_jobs') il`).all() as Array<{ name: string; u: number }>)
    .filter((i) => i.u === 1)
    .map((i) => i.name);

describe('enqueue-check-then-insert', () => {
  it('lets two producers that both saw the key absent both insert it: two jobs, both "created"', () => {
    fx = storeFixture('check-insert');
    const { p1, p2, queue } = race('enqueue-check-then-insert');
    expect(p2).toEqual({ created: true, jobId: 1 });
    expect(p1).toEqual({ created: true, jobId: 2 });
    expect(queue.jobs().map((j) => j.idempotency_key)).toEqual(['same-key', 'same-key']);
  });

  it('makes its store without the UNIQUE constraint on the key', () => {
    fx = storeFixture('check-insert-schema');
    const queue = fx.open('enqueue-check-then-insert');
    expect(uniqueIndexes(queue.db)).toEqual([]);
    const insert = `INSERT INTO agent_jobs (idempotency_key, action, payload_json, next_run_at, created_at, updated_at) VALUES ('k', 'a', '{}', 'x', 'x', 'x')`;
    queue.db.exec(`${insert}; ${insert}`);
    expect(queue.jobs()).toHaveLength(2);
  });

  it('leaves a store the reference made as it is: the constraint stays, and a lost race fails loudly', () => {
    fx = storeFixture('check-insert-existing');
    const reference = fx.open('reference');
    createStoreWithoutUniqueKey(fx.file);
    expect(uniqueIndexes(reference.db)).toHaveLength(1);
    const direct = new Database(fx.file);
    try {
      direct.pragma('busy_timeout = 1000');
      const variant = new EnqueueCheckThenInsertQueue(direct, fx.options);
      expect(variant.enqueue(REQUEST).created).toBe(true);
      expect(variant.enqueue(REQUEST)).toEqual({ created: false, jobId: 1 });
    } finally {
      direct.close();
    }
  });

  it('reference: one statement decides (the insert, on the UNIQUE key, in an immediate transaction); the second producer waits, then finds the job', () => {
    fx = storeFixture('check-insert-ref');
    const { p1, p2, queue } = race('reference');
    expect(p1).toEqual({ created: true, jobId: 1 });
    expect((p2 as Error & { code?: string }).code).toBe('SQLITE_BUSY');
    expect(queue.enqueue(REQUEST)).toEqual({ created: false, jobId: 1 });
    expect(uniqueIndexes(queue.db)).toHaveLength(1);
    expect(queue.jobs()).toHaveLength(1);
  });
});
