import { describe, expect, it } from 'vitest';
import { prefixFor } from '../../../src/adapters/bullmq/provision.js';
import { queueImpl } from '../../../src/adapters/registry.js';
import { CONTRACT_CHECKS } from '../../../src/contract/checks/index.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { keysMatching, skipWithoutRedis } from '../../helpers/redis.js';

/*
 * The adapter contract against BullMQ 5 on the local Redis: every check
 * passes, each on a fresh key prefix that is gone afterwards. Single-claim
 * holds only while the racers finish within one lease (300 ms, never renewed
 * in manual mode): on a machine so loaded that they do not, BullMQ's stalled
 * checker rightly takes the unrenewed jobs back (the postgres queue fails it
 * the same way then).
 */
describe.skipIf(skipWithoutRedis('the contract checks on the bullmq queue (test/adapters/bullmq)'))('bullmq: the adapter contract', () => {
  it('every check passes, and no key of any check is left behind', async () => {
    const impl = queueImpl('bullmq');
    const results = await runContract(impl, { servers: {} });
    const others = results.filter((r) => r.check !== 'single-claim');
    expect(others.map((r) => [r.check, r.status, r.detail])).toEqual(
      CONTRACT_CHECKS.filter((c) => c.id !== 'single-claim').map((c) => [c.id, 'passed', null]),
    );
    // Its racers hold their jobs unrenewed: only a race that outlives the 300 ms lock may see one taken back and claimed again.
    const single = results.find((r) => r.check === 'single-claim')!;
    if (single.status !== 'passed') {
      expect(single.detail).toMatch(/was claimed by 2 workers at once|held by null/);
      expect(single.durationMs).toBeGreaterThan(300);
    }
    // Each check's prefix is made from `contract bullmq <check> <pid> <n>` (src/contract/run-contract.ts).
    expect(await keysMatching(`qd-contract-bullmq-*-${process.pid}-*`)).toEqual([]);
  });

  it('a per-run prefix is readable, unique per run id, and has no colon', () => {
    const a = prefixFor('crash-after-claim 2026-12-01T10 123 1');
    expect(a).toMatch(/^qd-crash-after-claim-2026-12-01t10-123-1-[0-9a-f]{12}$/);
    expect(prefixFor('Run-1')).not.toBe(prefixFor('run_1'));
    expect(a).not.toContain(':');
  });
});
