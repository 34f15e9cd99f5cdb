import { describe, expect, it } from 'vitest';
import { databaseUrl, graphileDatabaseFor, locatorOf, parseLocator } from '../../../src/adapters/graphile-worker/locator.js';
import { UsageError } from '../../../src/kernel/errors.js';

/*
 * Where a drill's graphile queue lives, without a server: a database per
 * drill, named from the run id, found by every process from the locator and
 * the server's URL.
 */

describe('graphile-worker locator', () => {
  it('names a database per run id: readable, distinct for ids that read the same, at most 63 characters', () => {
    const long = graphileDatabaseFor(`crash-after-claim ${'x'.repeat(200)} 4242 1`);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^qd_gw_crash_after_claim_x+_[0-9a-f]{12}$/);
    expect(graphileDatabaseFor('Run-1')).not.toBe(graphileDatabaseFor('run_1'));
  });

  it("reads DATABASE (graphile's default schema) or DATABASE/SCHEMA, and refuses anything else", () => {
    expect(parseLocator('qd_gw_a')).toEqual({ database: 'qd_gw_a', schema: 'graphile_worker' });
    expect(parseLocator('qd_gw_a/other')).toEqual({ database: 'qd_gw_a', schema: 'other' });
    expect(locatorOf({ database: 'qd_gw_a', schema: 'graphile_worker' })).toBe('qd_gw_a');
    expect(locatorOf({ database: 'qd_gw_a', schema: 'other' })).toBe('qd_gw_a/other');
    for (const bad of ['', 'a/b/c', 'Qd', 'a;drop', 'pg_catalog', 'a/pg_x', '1abc']) expect(() => parseLocator(bad), bad).toThrow(UsageError);
  });

  it("puts the database in the server's URL, keeping its user, password, host and parameters", () => {
    expect(databaseUrl('postgres://u:p%40ss@db.example:6543/postgres?sslmode=require', 'qd_gw_a')).toBe(
      'postgres://u:p%40ss@db.example:6543/qd_gw_a?sslmode=require',
    );
    expect(databaseUrl('postgres://postgres@127.0.0.1:5432', 'qd_gw_a')).toBe('postgres://postgres@127.0.0.1:5432/qd_gw_a');
    expect(() => databaseUrl('not a url secret', 'qd_gw_a')).toThrow(/not a URL/);
    expect(() => databaseUrl('not a url secret', 'qd_gw_a')).not.toThrow(/secret/);
  });
});
