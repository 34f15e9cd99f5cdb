import type Database from 'better-sqlite3';

// The floors live in the ledger file, not in memory, so that several world processes on one file agree on them.

/** The fence tables of a ledger file. */
export const FENCES_SCHEMA_SQL = `-- Resource-side fencing: per key, and per job, the highest lease fence (epoch)
-- a caller has shown. A call under a lower one comes from a holder whose lease
-- has moved on, and is refused before anything is applied: on its own key, and
-- on any other step of its job. A reconciliation raises the floors, so "not
-- executed" stays true for every older holder.
CREATE TABLE IF NOT EXISTS world_fences (
  idempotency_key TEXT PRIMARY KEY,
  fence           INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_job_fences (
  job    TEXT PRIMARY KEY,
  fence  INTEGER NOT NULL
);`;

/**
 * Shows a fence (epoch) for a key and, when given, for its job: false when a
 * higher one was already shown for either (the caller's lease has moved on),
 * else records it as their floor. Call inside a transaction.
 */
export function admitFence(db: Database.Database, key: string, fence: number, job?: string | null): boolean {
  const keyFloor = db.prepare('SELECT fence FROM world_fences WHERE idempotency_key = ?').get(key) as { fence: number } | undefined;
  const jobFloor = job ? (db.prepare('SELECT fence FROM world_job_fences WHERE job = ?').get(job) as { fence: number } | undefined) : undefined;
  if ((keyFloor && keyFloor.fence > fence) || (jobFloor && jobFloor.fence > fence)) return false;
  db.prepare(
    'INSERT INTO world_fences (idempotency_key, fence) VALUES (?, ?) ON CONFLICT (idempotency_key) DO UPDATE SET fence = MAX(fence, excluded.fence)',
  ).run(key, fence);
  if (job) raiseJobFence(db, job, fence);
  return true;
}

/**
 * Raises a job's floor to a fence without a call: a fenced world does so when
 * a holder's delivery begins (it is told the new lease's epoch before that
 * holder calls), so an older holder's call that arrives after the new lease
 * was granted is refused even if the new holder has not called yet.
 */
export function raiseJobFence(db: Database.Database, job: string, fence: number): void {
  db.prepare('INSERT INTO world_job_fences (job, fence) VALUES (?, ?) ON CONFLICT (job) DO UPDATE SET fence = MAX(fence, excluded.fence)').run(
    job,
    fence,
  );
}
