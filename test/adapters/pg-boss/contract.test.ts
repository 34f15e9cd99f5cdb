import { describe, expect, it } from 'vitest';
import { pgBossAdapter } from '../../../src/adapters/pg-boss/pg-boss-adapter.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { pgBossSchemasLeft } from './schemas.js';

/*
 * The adapter contract's checks on pg-boss 10, each on a schema of its own.
 * They pass where pg-boss does what the capabilities claim. Two fail, and
 * must: they are what pg-boss 10 really does, not the adapter's mistakes.
 */
describe.skipIf(skipWithoutPg('the contract checks on pg-boss (test/adapters/pg-boss/contract.test.ts)'))('pg-boss: the contract checks', () => {
  it('passes dedupe, single claim, bounded attempts and sticky review; fails the two pg-boss 10 cannot keep', { timeout: 120_000 }, async () => {
    const before = await pgBossSchemasLeft(/^qdpb_contract_pg_boss_/);
    const results = await runContract(pgBossAdapter, { servers: { pgUrl: PG_URL } });
    const status = Object.fromEntries(results.map((r) => [r.check, r.status]));
    expect(status, JSON.stringify(results, null, 2)).toEqual({
      'enqueue-dedupe': 'passed',
      'single-claim': 'passed',
      'attempts-bounded': 'passed',
      'review-sticky': 'passed',
      // pg-boss's complete matches any active job by id: the stale holder's write is applied (refusals is a reason, not true).
      'stale-write-refused': 'failed',
      // The contract's server-clock lease is 300 ms, below pg-boss's 1 s; and pg-boss takes a job back only at maintenance.
      'expired-lease-taken-back': 'failed',
    });
    const detail = Object.fromEntries(results.map((r) => [r.check, r.detail]));
    expect(detail['stale-write-refused']).toMatch(/w1's complete under epoch 1 was applied after w2 claimed the job under epoch 2/);
    expect(detail['expired-lease-taken-back']).toMatch(/no other worker could take the job back/);
    // Every check's schema was dropped.
    expect(await pgBossSchemasLeft(/^qdpb_contract_pg_boss_/)).toEqual(before);
  });
});
