import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { ManualOps } from '../../port/adapter.js';
import { QUEUE_NAME } from './boss.js';
import { claimOfFetched } from './claim.js';
import { configureQueue } from './configure-queue.js';
import type { PgBossSettings } from './mapping.js';
import { settlePgBoss } from './settle.js';

/**
 * Claim and settle by hand: pg-boss's own fetch (the statement its work loop
 * runs) and the same writes as the loop. Before its first fetch the
 * connection sets its lease and retry delay on the queue, as a worker does
 * before its loop starts (see configure-queue.ts). There is no heartbeat in
 * pg-boss 10: a renewal is answered refused, saying so, and changes nothing.
 */
export function manualOps(boss: () => Promise<PgBoss>, pool: pg.Pool, settings: PgBossSettings): ManualOps {
  let configured: Promise<number> | undefined;
  return {
    async claim(workerId) {
      configured ??= configureQueue(pool, settings);
      await configured;
      const [job] = await (await boss()).fetch<object>(QUEUE_NAME, { batchSize: 1, includeMetadata: true });
      return job ? claimOfFetched(job, workerId) : null;
    },
    heartbeat: async () => ({ ok: false, refused: 'pg-boss 10 has no heartbeat: a lease cannot be renewed' }),
    complete: async (claim, digest) => (await settlePgBoss(await boss(), pool, claim, { kind: 'done', digest })) ?? refusedNothing(),
    retry: async (claim, error) => (await settlePgBoss(await boss(), pool, claim, { kind: 'retry', error })) ?? refusedNothing(),
    review: async (claim, reason, error) =>
      (await settlePgBoss(await boss(), pool, claim, { kind: 'review', reason, ...(error !== undefined ? { error } : {}) })) ?? refusedNothing(),
  };
}

function refusedNothing(): { ok: false; refused: string } {
  return { ok: false, refused: 'nothing written' };
}
