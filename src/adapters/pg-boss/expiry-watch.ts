import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Claim, WorkOptions } from '../../port/delivery.js';
import { applicationName } from './boss.js';

/*
 * pg-boss's work() races each handler against the job's expireIn and, when
 * that passes, fails the job by id while the handler runs on
 * (timgit/pg-boss#555): a write of pg-boss's own, which no handler returns and
 * nothing outside pg-boss can hold back. So the worker tells the world as it
 * goes out: a timer of the same length, set before pg-boss's own (pg-boss
 * calls the handler first, then starts its race), fires first in the same
 * turn of the event loop, also after a frozen process wakes with both
 * overdue. The report may reach the world a moment after the write; no other
 * delivery can begin in that moment unless the job was already free (pg-boss
 * waits at least a second before it hands a failed job out again), so an
 * order the world sees is still one that happened.
 *
 * Whether pg-boss's fail applied is read from the history trigger's rows: a
 * re-insert of the job by this worker's connection, carrying pg-boss's message
 * for it ("handler execution exceeded …"), since this delivery started (both
 * times by the database's clock). Nothing is read unless the timer fires.
 */

const TIMED_OUT_FAIL = `SELECT EXISTS (SELECT 1 FROM qd_history
  WHERE job_id = $1 AND app = $2 AND op = 'I' AND at >= $3 AND output->>'message' LIKE 'handler execution exceeded%') AS found`;

/** How long the record is read for pg-boss's fail: after that its outcome is not told (the evidence says so). */
const RECORD_WAIT_MS = 3_000;
const RECORD_POLL_MS = 50;

/** Whether pg-boss's timeout fail of this delivery is in the history; null when it cannot be read. */
async function timedOutFail(pool: pg.Pool, claim: Claim, app: string, startedOn: Date): Promise<boolean | null> {
  try {
    const { rows } = await pool.query<{ found: boolean }>(TIMED_OUT_FAIL, [claim.jobId, app, startedOn]);
    return rows[0]?.found ?? null;
  } catch {
    return null; // no history here (a probe's bare schema), or the server is gone: the outcome is not told
  }
}

async function appliedAfter(pool: pg.Pool, claim: Claim, app: string, startedOn: Date): Promise<boolean | null> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  while (Date.now() < deadline) {
    const found = await timedOutFail(pool, claim, app, startedOn);
    if (found !== false) return found;
    await sleep(RECORD_POLL_MS);
  }
  return null; // pg-boss's fail matched nothing (the job was done) or has not landed yet: not told either way
}

/**
 * Watches one delivery for pg-boss's timeout fail; call it before the handler
 * starts (synchronously, in pg-boss's callback) and stop it once the handler
 * settles.
 */
export function watchExpiry(
  pool: pg.Pool,
  claim: Claim,
  fetched: { expireInSeconds: number; startedOn: Date },
  options: WorkOptions,
): { stop(): void } {
  const onQueueWrite = options.onQueueWrite;
  if (!onQueueWrite) return { stop: () => {} };
  const app = applicationName('worker', options.workerId);
  const startedOn = new Date(fetched.startedOn);
  const fire = () => onQueueWrite(claim, 'expired', appliedAfter(pool, claim, app, startedOn));
  // pg-boss's own length: resolveWithinSeconds(promise, maxExpiration), at least a second.
  const timer = setTimeout(fire, Math.max(1, fetched.expireInSeconds) * 1000);
  return { stop: () => clearTimeout(timer) };
}
