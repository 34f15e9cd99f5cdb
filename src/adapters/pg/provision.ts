import { createHash } from 'node:crypto';
import type { OwnerMark } from '../leftovers/owner-mark.js';
import { withPgClient } from './connection.js';
import { assertSchemaName, quoteIdent } from './identifier.js';
import { writeOwnerComment } from './owner-comment.js';

/** The start of every drill schema's name: how clean finds them (its owner mark says whose). */
export const SCHEMA_PREFIX = 'qd_';
const MAX_IDENTIFIER = 63;
const HASH_CHARS = 12;

/**
 * The schema of one drill's queue: `qd_`, the run id made readable (lowercase,
 * [a-z0-9_]), and a hash of the whole id, so two ids that read the same once
 * cleaned (Run-1, run_1) or share a long prefix still get their own; at most
 * PostgreSQL's 63 characters.
 */
export function schemaNameFor(runId: string): string {
  return runSchemaName(runId, SCHEMA_PREFIX, MAX_IDENTIFIER);
}

/**
 * A schema name for one drill's run: `prefix`, the run id made readable and a
 * hash of the whole id, at most `maxLength` characters of [a-z0-9_] (each
 * queue has its own prefix, and some a tighter limit than PostgreSQL's).
 */
export function runSchemaName(runId: string, prefix: string, maxLength: number): string {
  const hash = createHash('sha256').update(runId).digest('hex').slice(0, HASH_CHARS);
  const room = maxLength - prefix.length - 1 - HASH_CHARS;
  const readable = runId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+/, '')
    .slice(0, room)
    .replace(/_+$/, '');
  return readable === '' ? `${prefix}${hash}` : `${prefix}${readable}_${hash}`;
}

/**
 * Creates a queue's schema and its tables (`tablesSql`) in one transaction: all of it, or
 * none. A schema of that name already there is an error, never reused. With
 * `owner`, the schema is marked as that drill's in the same transaction
 * (./owner-comment.ts): no drill's schema is ever there unmarked.
 */
export async function createSchema(url: string, schema: string, tablesSql: string, owner?: OwnerMark): Promise<void> {
  assertSchemaName(schema);
  await withPgClient(url, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
      await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
      await client.query(tablesSql);
      if (owner) await writeOwnerComment(client, { kind: 'SCHEMA', name: schema }, owner);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}

/** Drops a queue's schema and everything in it; nothing to drop is fine. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  assertSchemaName(schema);
  await withPgClient(url, async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  });
}
