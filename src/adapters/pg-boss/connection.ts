import type PgBoss from 'pg-boss';
import type { ConnectOptions, QueueConnection } from '../../port/adapter.js';
import { assertPgReachable, resolvePgUrl } from '../pg/connection.js';
import { openPool } from '../pg/pool.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { openBoss, QUEUE_NAME } from './boss.js';
import { enqueuePgBoss } from './enqueue.js';
import { HISTORY_SQL, type HistoryRow, toTransitions } from './history.js';
import { humanOps } from './human.js';
import { JOBS_SQL, type PgBossJobRow, toJobSnapshot } from './jobs.js';
import { manualOps } from './manual.js';
import { settingsFor } from './mapping.js';
import { takeoverOps } from './takeover.js';
import { workPgBoss } from './work.js';

// A manual claim polls nothing; the settings' polling interval is pg-boss's floor.
const MANUAL_POLL_MS = 500;

/**
 * One process's connection to a drill's pg-boss: a pg-boss instance for
 * sending and manual claims (started on first use, never supervising), a
 * small pool for what pg-boss has no API for (reading every job and the
 * trigger's history), and the saga file beside the run, found in the schema.
 * A worker opens its own instances in work().
 */
export async function connectPgBoss(schema: string, options: ConnectOptions): Promise<QueueConnection> {
  const url = resolvePgUrl(options.servers?.pgUrl);
  // A server that does not answer is one line naming it, not a driver's stack trace at the first query.
  await assertPgReachable(url);
  const pool = openPool(url, schema, 3);
  let saga: FileSagaStore;
  try {
    const { rows } = await pool.query<{ saga_file: string }>('SELECT saga_file FROM qd_run');
    const file = rows[0]?.saga_file;
    if (file === undefined) throw new Error(`pg-boss schema ${schema} has no saga file recorded (provision it first)`);
    saga = FileSagaStore.open(file, options.clock);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  let client: Promise<PgBoss> | undefined;
  const boss = (): Promise<PgBoss> => {
    client ??= openBoss(url, schema, 'client', String(process.pid)).start();
    return client;
  };
  return {
    enqueue: async (request) => enqueuePgBoss(await boss(), request),
    work: (handler, work) =>
      workPgBoss(
        { url, schema, pool, saga, settings: settingsFor(options.leaseMs, options.retryDelay, work.pollMs, options.callTimeoutMs) },
        handler,
        work,
      ),
    async snapshot(snapshotOptions) {
      const [jobs, history] = await Promise.all([
        pool.query<PgBossJobRow>(JOBS_SQL, [QUEUE_NAME]),
        snapshotOptions?.history === false ? null : pool.query<HistoryRow>(HISTORY_SQL),
      ]);
      return { jobs: jobs.rows.map(toJobSnapshot), history: history ? toTransitions(history.rows) : [] };
    },
    async progress() {
      const { rows } = await pool.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM qd_history');
      return rows[0]?.seq ?? '0';
    },
    saga,
    manual: manualOps(boss, pool, settingsFor(options.leaseMs, options.retryDelay, MANUAL_POLL_MS, options.callTimeoutMs)),
    takeover: takeoverOps(boss, pool),
    human: humanOps(url, schema, pool, saga),
    async close() {
      if (client) await (await client).stop({ graceful: false, wait: true }).catch(() => undefined);
      await pool.end().catch(() => undefined);
      saga.close();
    },
  };
}
