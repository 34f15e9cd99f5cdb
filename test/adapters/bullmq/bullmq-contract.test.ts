import { describe, expect, it } from 'vitest';
import { prefixFor } from '../../../src/adapters/bullmq/provision.js';
import { CONTRACT_CHECKS } from '../../../src/contract/checks/index.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { queueImpl } from '../../../src/queues/registry.js';
import { keysMatching, skipWithoutRedis } from '../../helpers/redis.js';

/*
 * The adapter contract against BullMQ 5 on the local Redis, each check on a
 * fresh key prefix that is gone afterwards. Every check passes but one:
 * BullMQ bounds stalls by maxStalledCount (1), not by the job's attempts (2),
 * so the job whose holders die is started a third time, only to be failed at
 * once over its stall limit; that start is in BullMQ's own count (`ats`) and
 * the history shows it as a claim, so it is counted. (single-claim races
 * under a lease that cannot run out mid-race: the racers hold their jobs
 * unrenewed in manual mode, and on a loaded machine a 300 ms lock would
 * rightly be taken back by BullMQ's stalled checker.)
 */
describe.skipIf(skipWithoutRedis('the contract checks on the bullmq queue (test/adapters/bullmq)'))('bullmq: the adapter contract', () => {
  it('every check passes but attempts-bounded (the stall limit’s start), and no key of any check is left behind', async () => {
    const impl = queueImpl('bullmq');
    const results = await runContract(impl, { servers: {} });
    const expected = CONTRACT_CHECKS.map((c) =>
      c.id === 'attempts-bounded' ? [c.id, 'failed', 'the job counts 3 attempts with max attempts 2'] : [c.id, 'passed', null],
    );
    expect(results.map((r) => [r.check, r.status, r.detail])).toEqual(expected);
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
