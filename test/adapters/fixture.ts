import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import { openSqliteQueue } from '../../src/queues/registry.js';
import type { Claimed, QueueOptions, SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import type { Db } from '../../src/reference/sqlite/store.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A broken variant next to the reference, in-process, on a real SQLite file in
 * a temp dir: several connections to one file stand for several processes, and
 * a ManualClock moves time only when a test says so.
 */

export const T0 = Date.UTC(2026, 7, 25, 10, 0, 0);
export const LEASE_MS = 30_000;
export const SKEW_MS = 1_000;
/** Past any lease of the fixture, with its skew margin. */
export const PAST_LEASE_MS = LEASE_MS + SKEW_MS + 1;
export const RETRY_MS = 1_000;
export const DIGEST = createHash('sha256').update('verified result').digest('hex');

export interface StoreFixture {
  file: string;
  clock: ManualClock;
  options: QueueOptions;
  /** Opens the implementation called `name` on the fixture's file: another process's connection. */
  /** Opens the queue called `name` on the store, with `extra` options on top of the fixture's. */
  open(name: string, extra?: Partial<QueueOptions>): SqliteQueue;
  /**
   * A bare connection to the file that calls `onStatement` with the text of
   * every statement just before SQLite starts running it: a way to act in the
   * gap between two statements of a queue operation.
   */
  traced(onStatement: (sql: string) => void): Db;
  /** Enqueues one job and returns its id. */
  add(queue: SqliteQueue, key?: string, maxAttempts?: number): number;
  /** Claims as `workerId`; fails the test when nothing is ready. */
  claimBy(queue: SqliteQueue, workerId: string): Claimed;
  /** Every job's transitions and refusals, as "from>to by worker (fence)". */
  moves(queue: SqliteQueue, jobId: number): string[];
  close(): void;
}

/** A fresh store file for one test; close() (in afterEach) closes every connection and removes it. */
export function storeFixture(prefix: string): StoreFixture {
  const run = tempRunDir(`adapters-${prefix}`);
  const file = join(run.dir, 'queue.db');
  const clock = new ManualClock(T0);
  const options: QueueOptions = {
    clock,
    random: seededRandom(11),
    leaseMs: LEASE_MS,
    skewMarginMs: SKEW_MS,
    retryDelay: { baseMs: RETRY_MS, capMs: RETRY_MS, jitterMs: 0 },
  };
  const opened: Db[] = [];
  return {
    file,
    clock,
    options,
    open(name, extra = {}) {
      const queue = openSqliteQueue(name, file, { ...options, ...extra });
      opened.push(queue.db);
      return queue;
    },
    traced(onStatement) {
      const db = new Database(file, { verbose: (sql) => onStatement(String(sql)) });
      db.pragma('busy_timeout = 10000');
      opened.push(db);
      return db;
    },
    add(queue, key = 'job-1', maxAttempts) {
      return queue.enqueue({ key, action: 'charge', payload: { amount: 100 }, ...(maxAttempts === undefined ? {} : { maxAttempts }) }).jobId;
    },
    claimBy(queue, workerId) {
      const claimed = queue.claim(workerId);
      if (!claimed) throw new Error(`${workerId} claimed nothing: ${JSON.stringify(queue.jobs().map((j) => [j.id, j.status, j.leased_by]))}`);
      return claimed;
    },
    moves(queue, jobId) {
      return queue
        .history(jobId)
        .map((e) => `${e.kind === 'refused' ? 'refused ' : ''}${e.from_status ?? '(new)'}>${e.to_status} by ${e.worker ?? e.actor} (${e.fence})`);
    },
    close() {
      for (const db of opened) if (db.open) db.close();
      run.remove();
    },
  };
}
