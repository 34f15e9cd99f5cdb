import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { TakeoverOps } from '../../port/adapter.js';
import { QUEUE_NAME } from './boss.js';

// As graphile-worker's tests backdate locked_at: the lease's start moved back past its end, nothing else touched.
const BACKDATE_START = `
UPDATE job SET started_on = now() - expire_in - interval '1 second'
WHERE name = $1 AND id = $2 AND state = 'active'`;

const EXPIRED = `SELECT count(*)::int AS n FROM job WHERE name = $1 AND state = 'active' AND started_on + expire_in < now()`;

/**
 * pg-boss takes expired jobs back itself (its maintenance), so a coordinator
 * has nothing to release: `expiredLeases` is empty and `releaseExpired` never
 * takes one. `maintain` is pg-boss's public maintain() (expire, archive,
 * drop). `expireLease`, for tests, moves a job's start back past its lease and
 * runs maintenance, as the supervising instance would within a second.
 */
export function takeoverOps(boss: () => Promise<PgBoss>, pool: pg.Pool): TakeoverOps {
  const maintain = async (): Promise<number> => {
    const { rows } = await pool.query<{ n: number }>(EXPIRED, [QUEUE_NAME]);
    await (await boss()).maintain();
    return rows[0]?.n ?? 0;
  };
  return {
    async expireLease(jobId) {
      await pool.query(BACKDATE_START, [QUEUE_NAME, jobId]);
      await maintain();
    },
    expiredLeases: async () => [],
    releaseExpired: async () => false,
    maintain,
  };
}
