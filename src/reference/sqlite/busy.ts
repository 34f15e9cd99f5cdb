import { blockThisThread } from '../../kernel/block-thread.js';
import { InternalError } from '../../kernel/errors.js';
import type { Random } from '../../kernel/random.js';
import { isSqliteBusy } from '../../kernel/sqlite-file.js';

/*
 * SQLite has one writer at a time. A connection that finds the write lock
 * taken waits in SQLite's own busy handler (busy_timeout), which sleeps 1, 2,
 * 5, … up to 100 ms between looks, never jittered and never fair: with
 * several worker processes, one that keeps losing the race backs off further
 * and further while the others take the lock in turn, until it has waited
 * out the whole timeout and fails with SQLITE_BUSY (a worker died so at 4
 * workers on a 20,000-job backlog). A queue's transaction holds the lock for
 * a fraction of a millisecond, so those sleeps are also far too long. So the
 * queue waits itself: SQLite's timeout is 0 (a busy lock is reported at
 * once), and the whole operation is tried again (each is one transaction: a
 * busy one never committed, so it is safe to repeat) after a wait drawn at
 * random (full jitter, its ceiling doubling from a millisecond up to a cap),
 * until a budget is spent. Then it is reported, as StoreBusyError, never
 * swallowed. Why not shorter: on 2 cores, with more worker processes than
 * cores, every wake-up to find the lock still taken is CPU the lock's holder
 * needs. Measured (4 processes claiming and completing 10,000 no-op jobs on
 * one file, each job's done and next claim one transaction): 3,460-3,760
 * jobs/s with waits from 0.25 ms up to 4, 3,000-3,400 from 0.05 up to 1,
 * 4,300-4,800 from 1 up to 8 (and ~2,950 at 8 processes against 2,450).
 */

/** How a connection waits for the write lock. */
export interface BusyPolicy {
  /** SQLite's own busy_timeout: how long one try waits in its busy handler. @default 0 */
  sqliteTimeoutMs: number;
  /** The first retry waits up to this long (a uniform draw from 0 to it); each later one up to twice the one before. @default 1 */
  firstWaitMs: number;
  /** No single wait is drawn from beyond this. @default 8 */
  maxWaitMs: number;
  /** After this long in all (SQLite's waits and the queue's), the busy is reported. @default 30_000 */
  budgetMs: number;
}

/** The store's policy (see above). */
export const DEFAULT_BUSY_POLICY: BusyPolicy = { sqliteTimeoutMs: 0, firstWaitMs: 1, maxWaitMs: 8, budgetMs: 30_000 };

/** The write lock stayed taken for the whole budget: the store is overloaded or a writer is stuck. Exit 3. */
export class StoreBusyError extends InternalError {
  readonly code = 'QD_STORE_BUSY';
  constructor(
    readonly operation: string,
    readonly waitedMs: number,
    readonly tries: number,
    cause: unknown,
  ) {
    super(`the SQLite store stayed busy for ${waitedMs} ms over ${tries} tries of ${operation} (another writer holds the lock)`, { cause });
  }
}

/** What a retrying call needs: the policy, the jitter's source, a clock for the budget, and how to wait. */
export interface BusyRetry {
  policy: BusyPolicy;
  random: Random;
  /** @default Date.now */
  now?: () => number;
  /** @default blockThisThread (SQLite's calls are synchronous, and so is their wait: no busy loop burning a core) */
  sleep?: (ms: number) => void;
}

/**
 * Runs `operation` (one whole transaction), again after a jittered wait each
 * time it fails with SQLITE_BUSY, until the budget is spent; then throws
 * StoreBusyError. Any other error is thrown at once.
 */
export function retryBusy<T>(name: string, operation: () => T, retry: BusyRetry): T {
  const now = retry.now ?? Date.now;
  const sleep = retry.sleep ?? blockThisThread;
  const started = now();
  let ceiling = retry.policy.firstWaitMs;
  for (let tries = 1; ; tries++) {
    try {
      return operation();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const waited = now() - started;
      if (waited >= retry.policy.budgetMs) throw new StoreBusyError(name, waited, tries, error);
      sleep(Math.min(retry.random.next() * ceiling, retry.policy.budgetMs - waited));
      ceiling = Math.min(ceiling * 2, retry.policy.maxWaitMs);
    }
  }
}
