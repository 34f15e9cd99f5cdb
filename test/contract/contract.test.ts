import { describe, expect, it } from 'vitest';
import { queueImpl } from '../../src/adapters/registry.js';
import { CONTRACT_CHECKS } from '../../src/contract/checks/index.js';
import { runContract } from '../../src/contract/run-contract.js';
import { skipWithoutPg } from '../helpers/postgres.js';

/*
 * The adapter contract against every queue the project ships: the sound ones
 * keep every promise; each broken variant breaks exactly the promise its
 * mistake is about (and keeps the others), so every check is seen failing,
 * for the right reason.
 */

describe('the adapter contract', () => {
  it('has one check per promise, each with a statement', () => {
    expect(CONTRACT_CHECKS.map((c) => c.id)).toEqual([
      'enqueue-dedupe',
      'single-claim',
      'stale-write-refused',
      'expired-lease-taken-back',
      'attempts-bounded',
      'review-sticky',
    ]);
    for (const check of CONTRACT_CHECKS) expect(check.statement.length).toBeGreaterThan(30);
  });

  it('reference (SQLite): every check passes', async () => {
    const results = await runContract(queueImpl('reference'), { servers: {} });
    expect(results.map((r) => [r.check, r.status, r.detail])).toEqual(CONTRACT_CHECKS.map((c) => [c.id, 'passed', null]));
  });

  it.skipIf(skipWithoutPg('the contract checks on the postgres queue (test/contract/contract.test.ts)'))('postgres: every check passes', async () => {
    const results = await runContract(queueImpl('postgres'), { servers: {} });
    expect(results.map((r) => [r.check, r.status, r.detail])).toEqual(CONTRACT_CHECKS.map((c) => [c.id, 'passed', null]));
  });

  it.each([
    ['enqueue-check-then-insert', 'enqueue-dedupe', /key contract-dedupe-\d+: [2-4] of 4 racing producers were told they created it/],
    ['claim-no-transaction', 'single-claim', /job \d+ was claimed by [2-4] workers at once: racer-\d/],
    ['unguarded-writes', 'stale-write-refused', /w1's renewal under epoch 1 was applied after w2 claimed the job under epoch 2/],
    ['lease-never-expires', 'expired-lease-taken-back', /w1's lease ran out \d+ ms after the claim, but no other worker could take the job back/],
    ['attempts-not-counted', 'attempts-bounded', /the first claim is attempt 0, not 1/],
    ['review-on-timer', 'review-sticky', /job \d+ left review without a person: claimed again by w2/],
  ])('%s breaks %s, and only that', async (variant, check, evidence) => {
    const results = await runContract(queueImpl(variant), { servers: {} });
    expect(results.filter((r) => r.status !== 'passed').map((r) => r.check)).toEqual([check]);
    expect(results.find((r) => r.check === check)?.detail).toMatch(evidence);
  });

  it('the queue sketch as written breaks the lease promises', async () => {
    const results = await runContract(queueImpl('sketch-literal'), { servers: {} });
    expect(results.filter((r) => r.status === 'failed').map((r) => r.check)).toEqual(expect.arrayContaining(['expired-lease-taken-back']));
  });
});
