import { randomUUID } from 'node:crypto';
import { assertPgReachable, resolvePgUrl } from '../../src/adapters/pg/connection.js';
import { createSchema, dropSchema, schemaNameFor } from '../../src/adapters/pg/provision.js';
import { SCHEMA_SQL } from '../../src/reference/postgres/schema.js';

/*
 * The PostgreSQL the tests use ($QD_PG_URL, else the local default), and
 * whether it answered. When it did not, each gate of the tests that need it
 * skips them and prints one line saying which and why, unless PostgreSQL is
 * required: then the import fails, and every test file that needs the server
 * with it. It is required with QD_REQUIRE_PG=1 (.ci/run sets it), and on a CI
 * service (CI set, as they all set it) unless QD_REQUIRE_PG=0: a CI runner is
 * meant to have the server, so a skip there would only hide a broken setup.
 */

export const PG_URL = resolvePgUrl();

/** Whether these tests must have PostgreSQL (see above). */
export function pgRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const require = env.QD_REQUIRE_PG ?? '';
  if (require !== '') return require === '1';
  const ci = (env.CI ?? '').toLowerCase();
  return ci !== '' && ci !== '0' && ci !== 'false';
}

/** Why PostgreSQL is not available, once it did not answer. */
let unreachable = '';

async function pgReachable(url: string): Promise<boolean> {
  try {
    await assertPgReachable(url);
    return true;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (pgRequired()) {
      throw new Error(`PostgreSQL is required here (QD_REQUIRE_PG=1, or CI set) and did not answer: ${why}`, { cause: error });
    }
    unreachable = why;
    return false;
  }
}

/** Whether PostgreSQL answered at PG_URL. Gate tests with skipWithoutPg, which says so when it skips. */
export const PG_AVAILABLE: boolean = await pgReachable(PG_URL);

/**
 * The gate of tests that need PostgreSQL: `describe.skipIf(skipWithoutPg('PgLeaseStore on PostgreSQL'))`.
 * True (skip them) when the server did not answer, and then prints one line naming them and why.
 */
export function skipWithoutPg(what: string): boolean {
  if (PG_AVAILABLE) return false;
  console.warn(`PostgreSQL not reachable, so skipped: ${what}. ${unreachable} (set QD_REQUIRE_PG=1 to fail instead)`);
  return true;
}

/** A schema made for one test, and its removal for the test's teardown. */
export interface FreshSchema {
  schema: string;
  drop(): Promise<void>;
}

/** Creates a new queue schema (a name no other test, run or process uses) with the store's tables. */
export async function freshSchema(label: string): Promise<FreshSchema> {
  const schema = schemaNameFor(`test-${label}-${randomUUID()}`);
  await createSchema(PG_URL, schema, SCHEMA_SQL);
  return { schema, drop: () => dropSchema(PG_URL, schema) };
}
