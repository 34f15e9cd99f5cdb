import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEBIAN_RUBY, drillScenarios, protocolCheckResults, skipWithout } from '../helpers/debian-queues.js';
import { keysMatching, skipWithoutRedis } from '../helpers/redis.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The Sidekiq child (examples/sidekiq-queue/): Sidekiq's own launcher
 * (BasicFetch, JobRetry, the scheduled poller) on Redis under a namespace of
 * its own, speaking process protocol 2. protocol-check holds it to every step
 * it does not skip (it states that Sidekiq fences nothing); a short drill
 * shows a retry budget ending in Sidekiq's dead set (review) and a killed
 * worker's job lost (BasicFetch, probe S1), with every key of the drill gone
 * after it.
 */

const CHILD = `${DEBIAN_RUBY} ${join(import.meta.dirname, '../../examples/sidekiq-queue/sidekiq_queue.rb')}`;

describe.skipIf(skipWithoutRedis('the Sidekiq child') || skipWithout('sidekiq', 'the Sidekiq child'))('the Sidekiq child', () => {
  const run = tempRunDir('sidekiq-child');
  afterAll(() => run.remove());

  it('passes protocol-check, skipping the stale-write step with its reason', { timeout: 120_000 }, async () => {
    const results = await protocolCheckResults(CHILD);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(results.find((r) => r.name === 'stale-write-refused')).toMatchObject({
      status: 'skip',
      detail: expect.stringMatching(/Sidekiq has no fencing/),
    });
    expect(results.find((r) => r.name === 'requeue-from-review')?.status).toBe('pass');
  });

  it("drills: retries end in the dead set (review); a killed worker's job is lost; nothing left in Redis", { timeout: 240_000 }, async () => {
    expect((await drillScenarios(CHILD, run.dir, '--only', 'max-retries'))['max-retries']?.verdict).toBe('pass');
    // No retry allowed, so no retry schedule to wait for: the lost job is called lost at the shipped watchdog, not Sidekiq's.
    const lost = (await drillScenarios(CHILD, run.dir, '--only', 'crash-after-claim', '--queue-option', 'retry=0'))['crash-after-claim'];
    expect(lost?.verdict).toBe('fail');
    expect(JSON.stringify(lost)).toMatch(/no-lost-job/);
    expect(await keysMatching('qd-sidekiq-max-retries*')).toEqual([]);
  });
});
