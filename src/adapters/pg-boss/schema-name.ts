import { runSchemaName } from '../pg/provision.js';

/** pg-boss's own limit for its schema's name (attorney.js assertPostgresObjectName), tighter than PostgreSQL's 63. */
const MAX_NAME = 50;

/** The start of every drill's pg-boss schema name: how clean finds them (its owner mark says whose). */
export const PG_BOSS_SCHEMA_PREFIX = 'qdpb_';

/** The pg-boss schema of one drill: `qdpb_`, the run id made readable, a hash of it; at most 50 characters, as pg-boss requires. */
export function pgBossSchemaFor(runId: string): string {
  return runSchemaName(runId, PG_BOSS_SCHEMA_PREFIX, MAX_NAME);
}
