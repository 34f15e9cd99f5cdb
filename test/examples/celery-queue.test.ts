import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEBIAN_PYTHON, drillScenarios, protocolCheckResults, skipWithout } from '../helpers/debian-queues.js';
import { keysMatching, skipWithoutRedis } from '../helpers/redis.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The Celery child (examples/celery-queue/): Celery's own worker (solo pool)
 * on Redis, speaking process protocol 2. protocol-check holds it to every
 * step it does not skip (it states that Celery fences nothing, so the
 * stale-write step is skipped with that reason); a short drill shows a retry
 * budget ending in review and a worker's death not judged under Celery's
 * 3600 s visibility timeout, with every key of the drill gone after it.
 */

const CHILD = `${DEBIAN_PYTHON} ${join(import.meta.dirname, '../../examples/celery-queue/celery_queue.py')}`;

describe.skipIf(skipWithoutRedis('the Celery child') || skipWithout('celery', 'the Celery child'))('the Celery child', () => {
  const run = tempRunDir('celery-child');
  afterAll(() => run.remove());

  it('passes protocol-check, skipping the stale-write step with its reason', { timeout: 120_000 }, async () => {
    const results = await protocolCheckResults(CHILD);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(results.find((r) => r.name === 'stale-write-refused')).toMatchObject({
      status: 'skip',
      detail: expect.stringMatching(/Celery has no fencing/),
    });
    expect(results.find((r) => r.name === 'requeue-from-review')?.status).toBe('pass');
  });

  it('drills: retries end in review; a dead worker is not judged under the 3600 s visibility timeout; nothing left in Redis', {
    timeout: 180_000,
  }, async () => {
    const byName = await drillScenarios(CHILD, run.dir, '--only', 'max-retries,crash-after-claim');
    expect(byName['max-retries']?.verdict).toBe('pass');
    expect(JSON.stringify(byName['crash-after-claim'])).toMatch(/visibility timeout \(3600s\)/);
    expect(await keysMatching('qd-celery-max-retries*')).toEqual([]);
  });
});
