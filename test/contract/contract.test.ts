import { describe, expect, it } from 'vitest';
import { CONTRACT_CHECKS } from '../../src/contract/checks/index.js';
import { contractLease, runContract } from '../../src/contract/run-contract.js';
import type { DrillDemands } from '../../src/port/adapter.js';
import { queueImpl } from '../../src/queues/registry.js';
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

  // Its claim never takes an expired lease back, but it leaves that to a coordinator (as the reference does), whose
  // part the checks play: what is left is the write a lost lease lets through. (Without a coordinator its
  // mistake is caught by the drill: crash-after-claim's job stays running for ever; see variant-catches.)
  it('the queue sketch as written lets a stale write through', async () => {
    const results = await runContract(queueImpl('sketch-literal'), { servers: {} });
    expect(results.filter((r) => r.status === 'failed').map((r) => r.check)).toEqual(['stale-write-refused']);
  });

  it('judges fencing only on a queue that claims it, and says why not on one that does not', async () => {
    const reference = queueImpl('reference');
    const unfenced = { ...reference, capabilities: { ...reference.capabilities, fencing: 'this queue matches writes by job id alone' } };
    const results = await runContract(unfenced, { servers: {}, only: ['stale-write-refused', 'expired-lease-taken-back'] });
    expect(results.map((r) => [r.check, r.status, r.detail])).toEqual([
      ['stale-write-refused', 'not_judged', 'this queue matches writes by job id alone'],
      ['expired-lease-taken-back', 'passed', null],
    ]);
  });

  it("runs on the first lease the queue's fit accepts, or judges nothing, saying why", async () => {
    const reference = queueImpl('reference');
    const asked: DrillDemands[] = [];
    const atLeast = (minMs: number) => ({
      ...reference,
      fit: (demands: DrillDemands) => {
        asked.push(demands);
        return demands.leaseMs >= minMs ? { ok: true as const, mapping: {} } : { ok: false as const, reason: `lease below ${minMs} ms` };
      },
    });
    expect(await contractLease(atLeast(1_500), {})).toEqual({ ok: true, leaseMs: 2_000, skewMarginMs: 50 });
    expect(asked.map((d) => d.leaseMs)).toEqual([1_000, 2_000]);
    // The reference leaves taking leases back to a coordinator: the contract asks for one, as it plays its part.
    expect(asked[0]).toMatchObject({ coordinator: true, points: [], tools: [] });
    const none = await runContract(atLeast(60_000), { servers: {} });
    expect(none.map((r) => r.status)).toEqual(CONTRACT_CHECKS.map(() => 'not_judged'));
    expect(none[0]!.detail).toBe('no lease up to 5000 ms fits: lease below 60000 ms');
  });
});
