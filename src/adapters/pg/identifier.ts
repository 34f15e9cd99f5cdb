import { UsageError } from '../../kernel/errors.js';

// What a queue's schema may be called: plain lowercase, so the name reads the
// same quoted or not, in a locator, a log or psql; pg_ is PostgreSQL's own.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Throws UsageError unless `schema` is a plain lowercase identifier of at most 63 characters (PostgreSQL's limit). */
export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema) || schema.startsWith('pg_')) {
    throw new UsageError(
      `not a queue schema name: ${JSON.stringify(schema)} (lowercase letters, digits and _, at most 63, not starting with a digit or pg_)`,
    );
  }
}

/** An identifier quoted for SQL text: "name", with any " doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
