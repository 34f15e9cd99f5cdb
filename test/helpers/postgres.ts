import { randomUUID } from 'node:crypto';
import { assertPgReachable, resolvePgUrl } from '../../src/adapters/postgres/connection.js';
import { createSchema, dropSchema, schemaNameFor } from '../../src/adapters/postgres/provision.js';

/*
 * The PostgreSQL the tests use ($QD_PG_URL, else the local default), and
 * whether it answered. Unreachable: the tests that need it are skipped with
 * one line saying so, unless QD_REQUIRE_PG=1 (CI), where the import fails and
 * the suite with it.
 */

export const PG_URL = resolvePgUrl();

async function pgReachable(url: string): Promise<boolean> {
  try {
    await assertPgReachable(url);
    return true;
  } catch (error) {
    if (process.env.QD_REQUIRE_PG === '1') throw error;
    const why = error instanceof Error ? error.message : String(error);
    console.warn(`PostgreSQL tests skipped (set QD_REQUIRE_PG=1 to fail instead): ${why}`);
    return false;
  }
}

/** Whether PostgreSQL answered at PG_URL: gate the tests that need it with `describe.skipIf(!PG_AVAILABLE)`. */
export const PG_AVAILABLE: boolean = await pgReachable(PG_URL);

/** A schema made for one test, and its removal for the test's teardown. */
export interface FreshSchema {
  schema: string;
  drop(): Promise<void>;
}

/** Creates a new queue schema (a name no other test, run or process uses) with the store's tables. */
export async function freshSchema(label: string): Promise<FreshSchema> {
  const schema = schemaNameFor(`test-${label}-${randomUUID()}`);
  await createSchema(PG_URL, schema);
  return { schema, drop: () => dropSchema(PG_URL, schema) };
}
