import type pg from 'pg';
import { HarnessError } from '../../kernel/errors.js';

/**
 * What every operation here runs on: a pool (one statement, its own
 * transaction) or a client inside the transaction the store opened.
 */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** SQL with `@name` parameters, as the SQLite store writes it, turned into pg's `$n` and a values list. */
export function bind(text: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  const names: string[] = [];
  const out = text.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    if (!Object.hasOwn(params, name)) throw new HarnessError('QD_SQL_PARAMETER_MISSING', `SQL parameter @${name} was not given`);
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: out, values: names.map((name) => params[name]) };
}

/**
 * A statement the server prepares once per connection and runs by name after: parsed and planned once, where a
 * statement sent as text is parsed and planned at every call (for a claim of several common table expressions,
 * more than its execution). For the statements a worker runs at every job.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/** The rows of one statement with `@name` parameters. */
export async function rows<R extends pg.QueryResultRow>(
  db: Queryable,
  statement: string | NamedStatement,
  params: Record<string, unknown> = {},
): Promise<R[]> {
  if (typeof statement === 'string') {
    const bound = bind(statement, params);
    return (await db.query<R>(bound.text, bound.values)).rows;
  }
  const bound = bind(statement.text, params);
  return (await db.query<R>({ name: statement.name, text: bound.text, values: bound.values })).rows;
}

/** The first row of one statement, or undefined. */
export async function firstRow<R extends pg.QueryResultRow>(
  db: Queryable,
  statement: string | NamedStatement,
  params: Record<string, unknown> = {},
): Promise<R | undefined> {
  return (await rows<R>(db, statement, params))[0];
}

/** A span of milliseconds given as `@name`, as an interval. */
export function millis(param: string): string {
  return `(${param}::double precision * interval '1 millisecond')`;
}

/** The server's clock, once per statement: `FROM ${CLOCK}` makes `clock.now` one instant for every column it writes. */
export const CLOCK = `(SELECT clock_timestamp() AS now) AS clock`;

/** Runs one statement with `@name` parameters; how many rows it wrote (or returned). */
export async function run(db: Queryable, text: string, params: Record<string, unknown> = {}): Promise<number> {
  const bound = bind(text, params);
  return (await db.query(bound.text, bound.values)).rowCount ?? 0;
}
