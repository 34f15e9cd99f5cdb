import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { withPgClient } from '../../../src/adapters/postgres/connection.js';
import { queueImpl } from '../../../src/adapters/registry.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { DrillDemands, QueueConnection } from '../../../src/port/adapter.js';
import { SEED_RETRY_DELAY } from '../../../src/queue/retry-delay.js';
import { PG_URL, skipWithoutPg } from '../../helpers/postgres.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * The graphile-worker adapter on the real server, in this process: a schema
 * provisioned and dropped, graphile's own addJob deduplicating by job_key while
 * the row exists, and fit's refusal of a drill without the coordinator.
 */

const adapter = queueImpl('graphile-worker');

const DEMANDS: DrillDemands = {
  leaseMs: 300,
  skewMarginMs: 100,
  pollMs: 50,
  maxAttempts: [3],
  retryDelay: SEED_RETRY_DELAY,
  coordinator: true,
  approval: false,
  tools: [],
  points: [],
};

async function schemaExists(schema: string): Promise<boolean> {
  return withPgClient(PG_URL, async (client) => ((await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount ?? 0) > 0);
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('graphile-worker: fit', () => {
  it('refuses a drill without the coordinator, saying why, and maps the rest onto its options', async () => {
    const refused = await adapter.fit?.({ ...DEMANDS, coordinator: false }, {});
    expect(refused).toEqual({ ok: false, reason: expect.stringMatching(/4 hours.*forceUnlockWorkers.*without one/) });
    const fit = await adapter.fit?.(DEMANDS, {});
    expect(fit).toMatchObject({
      ok: true,
      mapping: { pollInterval: 50, maxAttempts: '3', 'lock sweep': expect.stringContaining('after lease_ms 300') },
    });
  });
});

describe.skipIf(skipWithoutPg('the graphile-worker adapter on PostgreSQL (test/adapters/graphile-worker)'))('graphile-worker on PostgreSQL', () => {
  async function provisioned(): Promise<{ schema: string; queue: QueueConnection }> {
    const run = tempRunDir('gw');
    cleanup.push(run.remove);
    const made = await adapter.provision({ runDir: run.dir, runId: `test-${randomUUID()}`, servers: { pgUrl: PG_URL } });
    cleanup.push(async () => {
      await made.teardown({ keep: false });
      expect(await schemaExists(made.locator)).toBe(false);
    });
    const queue = await adapter.connect(made.locator, {
      clock: systemClock(),
      random: seededRandom(1),
      leaseMs: 300,
      skewMarginMs: 100,
      retryDelay: SEED_RETRY_DELAY,
      servers: { pgUrl: PG_URL },
    });
    cleanup.push(() => queue.close());
    return { schema: made.locator, queue };
  }

  it('provisions a migrated schema of its own, dropped at teardown', async () => {
    const { schema } = await provisioned();
    expect(await schemaExists(schema)).toBe(true);
  });

  it('tells a created job from a deduplicated one, and records the creation in its history', async () => {
    const { queue } = await provisioned();
    const request = { key: 'k-1', action: 'sleep', payload: '{"ms":1}', maxAttempts: 3 };
    const first = await queue.enqueue(request);
    const again = await queue.enqueue(request);
    expect(first.outcome).toBe('created');
    expect(again).toEqual({ outcome: 'deduplicated', jobId: first.jobId });
    const { jobs, history } = await queue.snapshot();
    expect(jobs).toEqual([
      expect.objectContaining({ id: first.jobId, key: 'k-1', action: 'sleep', payload: '{"ms":1}', status: 'pending', maxAttempts: 3 }),
    ]);
    expect(history).toEqual([expect.objectContaining({ jobId: first.jobId, from: null, to: 'pending', actor: 'producer' })]);
  });

  it('the contract: dedupe passes; the checks that need a manual claim, or fencing, are not judged, each with its reason', {
    timeout: 60_000,
  }, async () => {
    const results = await runContract(adapter, { servers: { pgUrl: PG_URL } });
    expect(results.map((r) => [r.check, r.status])).toEqual([
      ['enqueue-dedupe', 'passed'],
      ['single-claim', 'not_judged'],
      ['stale-write-refused', 'not_judged'],
      ['expired-lease-taken-back', 'not_judged'],
      ['attempts-bounded', 'not_judged'],
      ['review-sticky', 'not_judged'],
    ]);
    const reasons = Object.fromEntries(results.map((r) => [r.check, r.detail]));
    expect(reasons['stale-write-refused']).toBe(adapter.capabilities.fencing);
    expect(reasons['single-claim']).toBe('graphile-worker offers no manual claim and settle');
  });
});
