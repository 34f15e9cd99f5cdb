import { createHash } from 'node:crypto';

const PREFIX = 'qdpb_';
/** pg-boss's own limit for its schema's name (attorney.js assertPostgresObjectName), tighter than PostgreSQL's 63. */
const MAX_NAME = 50;
const HASH_CHARS = 12;

/**
 * The pg-boss schema of one drill: `qdpb_`, the run id made readable, and a
 * hash of the whole id (two ids that read the same once cleaned still get
 * their own); at most 50 characters, [a-z0-9_], as pg-boss requires.
 */
export function pgBossSchemaFor(runId: string): string {
  const hash = createHash('sha256').update(runId).digest('hex').slice(0, HASH_CHARS);
  const room = MAX_NAME - PREFIX.length - 1 - HASH_CHARS;
  const readable = runId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+/, '')
    .slice(0, room)
    .replace(/_+$/, '');
  return readable === '' ? `${PREFIX}${hash}` : `${PREFIX}${readable}_${hash}`;
}
