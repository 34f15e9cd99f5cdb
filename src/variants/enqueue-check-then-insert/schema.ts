import { REFERENCE_SCHEMA_RULES, schemaSql } from '../../reference/sqlite/schema.js';

/**
 * The reference schema without the UNIQUE constraint on idempotency_key (the
 * application checks for duplicates, so the constraint "only got in the way"),
 * with a plain index so the check stays fast. Like the reference's, it only
 * makes what is missing: a store the reference made keeps its constraint.
 */
export const SCHEMA_WITHOUT_UNIQUE_KEY_SQL = `${schemaSql({ ...REFERENCE_SCHEMA_RULES, uniqueKey: false })}
CREATE INDEX IF NOT EXISTS idx_agent_jobs_key ON agent_jobs(idempotency_key);`;
