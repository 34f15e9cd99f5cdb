import { join } from 'node:path';
import type { Provisioned, ProvisionRequest } from '../../port/adapter.js';
import { ownerMarkHere } from '../leftovers/owner-mark.js';
import { maskUrl, resolvePgUrl, withPgClient } from '../pg/connection.js';
import { quoteIdent } from '../pg/identifier.js';
import { holdOwnerComment, writeOwnerComment } from '../pg/owner-comment.js';
import { openBoss, QUEUE_NAME } from './boss.js';
import { historyTriggerSql } from './history-trigger.js';
import { pgBossSchemaFor } from './schema-name.js';

/** The environment variable the drill's processes find the server in (never their command line: a URL may carry a password). */
export const URL_ENV = 'QD_PG_URL';

/**
 * Makes one drill's pg-boss: its schema with pg-boss's own tables (pg-boss's
 * migration, run once here, before any child starts), the history trigger on
 * its job table, the queue (created before any send, as 10.x requires), and
 * where the saga's checkpoints live (a file in the run directory), and the
 * schema marked as this drill's (../postgres/owner-comment.ts: `queue-drill
 * clean` takes it if this process dies before its teardown; pg-boss makes the
 * schema, so it is unmarked for the moment until the mark's transaction
 * commits, and clean leaves an unmarked schema alone). Teardown drops the
 * schema unless kept.
 */
export async function provisionPgBoss(request: ProvisionRequest): Promise<Provisioned> {
  const url = resolvePgUrl(request.servers.pgUrl);
  const schema = pgBossSchemaFor(request.runId);
  const sagaFile = join(request.runDir, 'pg-boss-saga.db');
  const owner = ownerMarkHere('pg-boss', request.runDir);
  const target = { kind: 'SCHEMA', name: schema } as const;
  try {
    const boss = openBoss(url, schema, 'provision', String(process.pid));
    await boss.start();
    try {
      await withPgClient(url, async (client) => {
        await client.query('BEGIN');
        await writeOwnerComment(client, target, owner);
        await client.query(historyTriggerSql(schema));
        await client.query(`INSERT INTO ${quoteIdent(schema)}.qd_run (saga_file) VALUES ($1)`, [sagaFile]);
        await client.query('COMMIT');
      });
      // After the trigger: the queue's partition is attached to the job table, and takes its trigger with it.
      await boss.createQueue(QUEUE_NAME, { name: QUEUE_NAME, policy: 'standard' });
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  } catch (error) {
    await dropPgBossSchema(url, schema).catch(() => {});
    throw error;
  }
  const mark = holdOwnerComment(url, target, owner);
  return {
    locator: schema,
    env: { [URL_ENV]: url },
    where: `${maskUrl(url)} pg-boss schema ${schema}`,
    teardown: async ({ keep }) => {
      await mark.end({ keep });
      if (!keep) await dropPgBossSchema(url, schema);
    },
  };
}

/** Drops a drill's pg-boss schema and everything in it; nothing to drop is fine. */
export async function dropPgBossSchema(url: string, schema: string): Promise<void> {
  await withPgClient(url, async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  });
}
