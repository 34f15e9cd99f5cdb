import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../src/harness/wait-for.js';
import { blockThisThread } from '../../../src/kernel/block-thread.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import { isSqliteBusy } from '../../../src/kernel/sqlite-file.js';
import { DEFAULT_BUSY_POLICY, retryBusy, StoreBusyError } from '../../../src/reference/sqlite/busy.js';
import { SqliteQueue } from '../../../src/reference/sqlite/sqlite-queue.js';
import { openStore } from '../../../src/reference/sqlite/store.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/** An error as better-sqlite3 throws it for a lock another connection holds. */
const busyError = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('retryBusy: a busy store is waited for, with jitter, within a budget', () => {
  it('tries again after each busy, each wait drawn from the injected source below a ceiling that doubles up to the cap', () => {
    const draws = [0.5, 1, 0.25, 1, 1, 1, 0.5];
    let drawn = 0;
    const random = { next: () => draws[drawn++ % draws.length]! };
    const waits: number[] = [];
    const clock = 0;
    let failures = 6;
    const result = retryBusy(
      'claim',
      () => {
        if (failures-- > 0) throw busyError();
        return 'claimed';
      },
      { policy: { ...DEFAULT_BUSY_POLICY, firstWaitMs: 1, maxWaitMs: 8 }, random, now: () => clock, sleep: (ms) => waits.push(ms) },
    );
    expect(result).toBe('claimed');
    // Ceilings 1, 2, 4, 8, 8, 8, each wait a draw of it.
    expect(waits).toEqual([0.5, 2, 1, 8, 8, 8]);
  });

  it('reports a busy that outlasts the budget as StoreBusyError (QD_STORE_BUSY), with the operation and how long it waited', () => {
    let clock = 0;
    const retry = {
      policy: { ...DEFAULT_BUSY_POLICY, budgetMs: 100 },
      random: seededRandom(1),
      now: () => clock,
      sleep: (ms: number) => (clock += ms + 10),
    };
    let error: unknown;
    try {
      retryBusy(
        'complete',
        () => {
          throw busyError();
        },
        retry,
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(error).toMatchObject({ code: 'QD_STORE_BUSY', operation: 'complete', exitCode: 3 });
    expect((error as StoreBusyError).waitedMs).toBeGreaterThanOrEqual(100);
    expect((error as StoreBusyError).tries).toBeGreaterThan(1);
  });

  it('throws any other error at once, untried again', () => {
    let tries = 0;
    const broken = () => {
      tries++;
      throw Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT' });
    };
    expect(() => retryBusy('enqueue', broken, { policy: DEFAULT_BUSY_POLICY, random: seededRandom(1) })).toThrow('constraint');
    expect(tries).toBe(1);
    expect(isSqliteBusy(busyError())).toBe(true);
    expect(isSqliteBusy(Object.assign(new Error('x'), { code: 'SQLITE_BUSY_SNAPSHOT' }))).toBe(true);
  });
});

describe('the SQLite queue while another process holds the write lock', () => {
  let run: ReturnType<typeof tempRunDir>;
  let queue: SqliteQueue;

  beforeEach(() => {
    run = tempRunDir('busy');
    queue = SqliteQueue.open(join(run.dir, 'queue.db'), { clock: systemClock(), random: seededRandom(1) });
    queue.enqueue({ key: 'a', action: 'noop', payload: '{}' });
  });

  afterEach(() => {
    queue.close();
    run.remove();
  });

  it('claims once the holder lets go, instead of failing with SQLITE_BUSY', async () => {
    // A real other process takes the write lock, says so, and holds it until the queue, waiting for it, lets it go:
    // so the claim certainly met the lock taken, and certainly got it only once the other committed.
    const locked = join(run.dir, 'locked');
    const letGo = join(run.dir, 'let-go');
    const holder = execa(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const D = require('better-sqlite3'); const db = new D(${JSON.stringify(join(run.dir, 'queue.db'))});
         db.exec('BEGIN IMMEDIATE'); fs.writeFileSync(${JSON.stringify(locked)}, '');
         const nap = new Int32Array(new SharedArrayBuffer(4));
         while (!fs.existsSync(${JSON.stringify(letGo)})) Atomics.wait(nap, 0, 0, 5);
         db.exec('COMMIT');`,
      ],
      { reject: false },
    );
    try {
      await waitFor(() => existsSync(locked), { timeoutMs: 30_000, what: 'the other process to take the lock' });
      const waits: number[] = [];
      const patient = SqliteQueue.open(join(run.dir, 'queue.db'), {
        clock: systemClock(),
        random: seededRandom(1),
        busyWait: {
          random: seededRandom(2),
          sleep: (ms) => {
            if (waits.push(ms) === 1) writeFileSync(letGo, '');
            blockThisThread(ms);
          },
        },
      });
      try {
        expect(patient.claim('w1')?.job.idempotency_key).toBe('a');
        expect(waits.length).toBeGreaterThan(0);
        expect(waits.every((ms) => ms >= 0 && ms <= DEFAULT_BUSY_POLICY.maxWaitMs)).toBe(true);
      } finally {
        patient.close();
      }
      expect((await holder).exitCode).toBe(0);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('reports StoreBusyError when the lock stays taken past its budget', () => {
    const other = openStore(join(run.dir, 'queue.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const impatient = SqliteQueue.open(join(run.dir, 'queue.db'), {
        clock: systemClock(),
        random: seededRandom(1),
        busyWait: { policy: { budgetMs: 50 } },
      });
      try {
        expect(() => impatient.claim('w1')).toThrow(StoreBusyError);
      } finally {
        impatient.close();
      }
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});
