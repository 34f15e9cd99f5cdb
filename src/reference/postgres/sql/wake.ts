import type { Queryable } from '../../../adapters/pg/queryable.js';

/*
 * How a write tells idle workers and the coordinator of every process that
 * there may be work (../pg-wake-signals.ts listens). The channel is the queue's
 * schema: one per drill, already a plain lowercase identifier of at most 63
 * bytes (assertSchemaName), so LISTEN names it quoted exactly as pg_notify
 * does. In SQL it is current_schema(), the one schema every store connection
 * has on its search path (pool.ts): the statements need no parameter for it,
 * and a notification names the queue whose tables it wrote.
 */

/** The channel a queue's writes notify on and its processes listen to. */
export function wakeChannel(schema: string): string {
  return schema;
}

// Sent at COMMIT, and only if the transaction commits; the same notification twice in one transaction is sent once.
const WAKE_SQL = `SELECT pg_notify(current_schema(), '')`;

/**
 * Notifies the queue's listeners, in the caller's transaction: called by the
 * writes that give an idle process something to do (a job made ready, a lease
 * ended or given up, a status that the drained check or the coordinator
 * reads), never by a claim's take, which only takes work (a notification
 * there would wake every idle worker to claim and find nothing, on every claim).
 */
export async function wakeIdle(db: Queryable): Promise<void> {
  await db.query(WAKE_SQL);
}
