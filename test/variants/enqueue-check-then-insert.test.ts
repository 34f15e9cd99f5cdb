import { afterEach, describe, expect, it } from 'vitest';
import { type SqliteEnqueueRequest, SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { type Db, statement } from '../../src/reference/sqlite/store.js';
import { EnqueueCheckThenInsertQueue } from '../../src/variants/enqueue-check-then-insert/enqueue-check-then-insert-queue.js';
import { type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx.close());

const REQUEST: SqliteEnqueueRequest = { key: 'same-key', action: 'charge', payload: { amount: 100 } };
// The start of the enqueue's write transaction: in the variant, after its look-up; in the reference, before anything.
const BEGIN = /^BEGIN/i;

const CASES = [
  { name: 'reference', make: (db: Db, f: StoreFixture) => new SqliteQueue(db, f.options) },
  { name: 'enqueue-check-then-insert', make: (db: Db, f: StoreFixture) => new EnqueueCheckThenInsertQueue(db, f.options) },
] as const;

type Outcome = { created: boolean; jobId: number } | Error;

function attempt(enqueue: () => { created: boolean; jobId: number }): Outcome {
  try {
    return enqueue();
  } catch (error) {
    return error as Error;
  }
}

/** p1 enqueues a key; just before p1's write transaction begins, p2 (another connection) enqueues the same key. */
function race(name: (typeof CASES)[number]['name']) {
  const entry = CASES.find((c) => c.name === name)!;
  const p2Queue = fx.open(name); // makes the store unless it exists, as the drill's first open does
  let p2: Outcome | undefined;
  const db = fx.traced((sql) => {
    if (p2 === undefined && BEGIN.test(sql)) p2 = attempt(() => p2Queue.enqueue(REQUEST));
  });
  const p1 = attempt(() => entry.make(db, fx).enqueue(REQUEST));
  if (p2 === undefined) throw new Error('the enqueue never began a transaction');
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
    fx.open('reference');
    const { p1, p2, queue } = race('enqueue-check-then-insert');
    expect(uniqueIndexes(queue.db)).toHaveLength(1);
    expect(p2).toEqual({ created: true, jobId: 1 });
    expect(p1).toBeInstanceOf(Error);
    expect((p1 as Error & { code?: string }).code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(queue.jobs()).toHaveLength(1);
  });

  it('reference: one statement decides (the insert, on the UNIQUE key), so whoever comes second is told the job exists', () => {
    fx = storeFixture('check-insert-ref');
    const { p1, p2, queue } = race('reference');
    expect(p2).toEqual({ created: true, jobId: 1 });
    expect(p1).toEqual({ created: false, jobId: 1 });
    expect(uniqueIndexes(queue.db)).toHaveLength(1);
    expect(queue.jobs()).toHaveLength(1);
  });
});
