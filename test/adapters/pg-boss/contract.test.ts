import { describe, expect, it } from 'vitest';
import { pgBossAdapter } from '../../../src/adapters/pg-boss/pg-boss-adapter.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { pgBossSchemasLeft } from './schemas.js';

/*
 * The adapter contract's checks on pg-boss 10, each on a schema of its own.
 * They pass where pg-boss does what the capabilities claim; fencing, which
 * they do not claim (pg-boss 10 matches writes by job id alone), is not judged,
 * with the reason. The checks run on a 1 s lease (pg-boss's minimum: its fit
 * refuses the contract's 300 ms) and take expired leases back as pg-boss's
 * supervising instance does, by its maintenance.
 */
describe.skipIf(skipWithoutPg('the contract checks on pg-boss (test/adapters/pg-boss/contract.test.ts)'))('pg-boss: the contract checks', () => {
  it('passes every check whose promise its capabilities claim; fencing is not judged, with the reason', { timeout: 120_000 }, async () => {
    const before = await pgBossSchemasLeft(/^qdpb_contract_pg_boss_/);
    const results = await runContract(pgBossAdapter, { servers: { pgUrl: PG_URL } });
    const status = Object.fromEntries(results.map((r) => [r.check, r.status]));
    expect(status, JSON.stringify(results, null, 2)).toEqual({
      'enqueue-dedupe': 'passed',
      'single-claim': 'passed',
      'attempts-bounded': 'passed',
      'review-sticky': 'passed',
      'stale-write-refused': 'not_judged',
      'expired-lease-taken-back': 'passed',
    });
    const detail = Object.fromEntries(results.map((r) => [r.check, r.detail]));
    expect(detail['stale-write-refused']).toBe(pgBossAdapter.capabilities.fencing);
    expect(detail['stale-write-refused']).toMatch(/complete matches any active job by id/);
    // Every check's schema was dropped.
    expect(await pgBossSchemasLeft(/^qdpb_contract_pg_boss_/)).toEqual(before);
  });
});
