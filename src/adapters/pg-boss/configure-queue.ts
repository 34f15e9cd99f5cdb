import type pg from 'pg';
import { inTransaction } from '../pg/pool.js';
import { QUEUE_NAME } from './boss.js';
import type { PgBossSettings } from './mapping.js';

/*
 * pg-boss copies a queue's expire_seconds and retry_delay into each job when
 * it is sent. In a drill the lease and the retry policy reach the workers
 * only (producers are not told them), so each worker, before its loop
 * starts, sets them on the queue (what createQueue/updateQueue would) and on
 * the jobs sent before any worker had (what a producer that knew them would
 * have passed to send). One transaction, with the job table locked against
 * sends (SHARE ROW EXCLUSIVE conflicts with an insert's ROW EXCLUSIVE): a
 * concurrent send either committed before and is restamped, or starts after
 * and reads the new settings. A job already fetched keeps what it had: none
 * can be, since only workers fetch and each configures first. The same values
 * from every worker: a restarted worker changes nothing.
 */
const CONFIGURE_QUEUE = `
UPDATE queue SET expire_seconds = $2, retry_delay = $3, retry_backoff = false, updated_on = now()
WHERE name = $1`;

const RESTAMP_WAITING_JOBS = `
UPDATE job SET expire_in = $2 * interval '1 second', retry_delay = $3, retry_backoff = false
WHERE name = $1 AND state < 'active'
  AND (expire_in <> $2 * interval '1 second' OR retry_delay <> $3 OR retry_backoff)`;

/** Sets the drill's lease and retry delay on the queue and on every job still waiting for its first fetch; how many jobs it restamped. */
export async function configureQueue(pool: pg.Pool, settings: PgBossSettings): Promise<number> {
  return inTransaction(pool, async (db) => {
    await db.query('LOCK TABLE job IN SHARE ROW EXCLUSIVE MODE');
    const values = [QUEUE_NAME, settings.expireInSeconds, settings.retryDelaySeconds];
    await db.query(CONFIGURE_QUEUE, values);
    const restamped = await db.query(RESTAMP_WAITING_JOBS, values);
    return restamped.rowCount ?? 0;
  });
}
