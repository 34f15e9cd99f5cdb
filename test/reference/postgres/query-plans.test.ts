import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdent } from '../../../src/adapters/pg/identifier.js';
import { bind } from '../../../src/adapters/pg/queryable.js';
import { CLAIM_ONE, CLAIM_SQL } from '../../../src/reference/postgres/sql/claim.js';
import { NEXT_DUE_SQL } from '../../../src/reference/postgres/sql/next-due.js';
import { EXPIRED_LOCKED_SQL } from '../../../src/reference/postgres/sql/sweep-expired-leases.js';
import { type FreshSchema, freshSchema, PG_URL, skipWithoutPg } from '../../helpers/postgres.js';

/*
 * What each read of a claim costs on PostgreSQL, said by its planner: the
 * look-up of the next job walks the ready index in the claim's order and
 * stops at the first due job (a Limit over an index scan, no Sort of every
 * ready job), and the sweep reads only the running jobs whose lease ended
 * (an index condition on lease_until: its cutoff is computed once, since a
 * volatile clock_timestamp() compared row by row cannot bound an index scan).
 * Checked before and after the planner has statistics over a backlog.
 */

describe.skipIf(skipWithoutPg('the PostgreSQL claim query plans'))('the PostgreSQL reference claim, by its plan', () => {
  let fresh: FreshSchema;
  let client: pg.Client;

  beforeAll(async () => {
    fresh = await freshSchema('query-plans');
    client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`SET search_path TO ${quoteIdent(fresh.schema)}`);
    await client.query(`
      INSERT INTO agent_jobs (idempotency_key, action, payload_json, next_run_at, created_at, updated_at)
      SELECT 'k' || n, 'noop', '{}', clock_timestamp(), clock_timestamp(), clock_timestamp() FROM generate_series(1, 5000) AS n`);
    await client.query(`
      UPDATE agent_jobs SET status = 'running', leased_by = 'w', lease_until = clock_timestamp() + interval '1 minute', attempts = 1, lease_fence = 1
      WHERE id <= 500`);
  });

  afterAll(async () => {
    await client?.end();
    await fresh?.drop();
  });

  /** The plan of one of the store's statements, as text, its @name parameters bound as the store binds them. */
  async function plan(sql: string, params: Record<string, unknown>): Promise<string> {
    const bound = bind(sql, params);
    const explained = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${bound.text}`, bound.values);
    return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  for (const statistics of ['without statistics', 'with statistics'] as const) {
    it(`walks the ready index in order for the next job, sorting nothing (${statistics})`, async () => {
      if (statistics === 'with statistics') await client.query('ANALYZE agent_jobs');
      const text = await plan(CLAIM_SQL, { workerId: 'w', leaseMs: 1000 });
      expect(text).toMatch(/Limit[\s\S]*LockRows[\s\S]*Index Scan using agent_jobs_ready on agent_jobs/);
      expect(text).not.toMatch(/Sort/);
      expect(text).not.toMatch(/Seq Scan/);
    });

    it(`claims in one statement by the same walk, and asks after expired leases by the lease index (${statistics})`, async () => {
      if (statistics === 'with statistics') await client.query('ANALYZE agent_jobs');
      const text = await plan(CLAIM_ONE.text, { workerId: 'w', leaseMs: 1000, skewMarginMs: 50 });
      expect(text).toMatch(/Limit[\s\S]*LockRows[\s\S]*Index Scan using agent_jobs_ready on agent_jobs/);
      // The EXISTS stops at the first expired lease it finds, reading the lease index from its cutoff, computed once.
      expect(text).toMatch(
        /(Index Scan using agent_jobs_leases on agent_jobs|Bitmap Index Scan on agent_jobs_leases)[\s\S]*?Index Cond: \(lease_until < \$\d+\)/,
      );
      expect(text).not.toMatch(/Sort/);
      expect(text).not.toMatch(/Seq Scan on agent_jobs/);
    });

    it(`reads only expired leases, by an index condition on lease_until (${statistics})`, async () => {
      if (statistics === 'with statistics') await client.query('ANALYZE agent_jobs');
      const text = await plan(EXPIRED_LOCKED_SQL, { skewMarginMs: 50 });
      // An index scan, or a bitmap one: either reads only what the index condition lets through.
      expect(text).toMatch(/(Index Scan using agent_jobs_leases on agent_jobs|Bitmap Index Scan on agent_jobs_leases)/);
      expect(text).toMatch(/Index Cond: \(lease_until < \$\d+\)/);
      expect(text).not.toMatch(/Seq Scan/);
    });

    it(`finds the next lease end as the first entry of the lease index, and each look-up once (${statistics})`, async () => {
      if (statistics === 'with statistics') await client.query('ANALYZE agent_jobs');
      const text = await plan(NEXT_DUE_SQL, { skewMarginMs: 50 });
      expect(text).toMatch(/Limit[\s\S]*Index Only Scan using agent_jobs_leases on agent_jobs/);
      expect(text).not.toMatch(/Sort/);
      // Two look-ups, not four: the due time is named once in the statement.
      expect(text.match(/InitPlan/g)?.length).toBeLessThanOrEqual(3);
    });
  }
});
