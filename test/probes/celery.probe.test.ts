import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { DEBIAN_PYTHON, skipWithout } from '../helpers/debian-queues.js';
import { REDIS_URL, skipWithoutRedis } from '../helpers/redis.js';

/*
 * Probes of Celery 5.2.6 alone (Debian's python3-celery, kombu 5.2.4, its
 * Redis transport; no queue-drill code): what the Celery column of a
 * comparison rests on. examples/celery-queue/probe_worker_killed.py sends a
 * task, starts `celery worker --pool solo`, SIGKILLs it while the task runs,
 * starts another worker 1.5 s later and watches for 8 s; its docstring cites
 * the source line of each fact.
 */

const PROBE = join(import.meta.dirname, '../../examples/celery-queue/probe_worker_killed.py');

interface Observed {
  in_queue: number;
  unacked: number;
  starts: Array<{ retries: number; redelivered: boolean }>;
}

async function probe(...flags: string[]): Promise<Observed> {
  const { stdout } = await execa(DEBIAN_PYTHON, [PROBE, REDIS_URL, ...flags], { env: { PYTHONWARNINGS: 'ignore' } });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Observed;
}

describe.skipIf(skipWithoutRedis('the Celery probes') || skipWithout('celery', 'the Celery probes'))('Celery alone', () => {
  it("C1: with its defaults, a SIGKILLed worker's task is neither run again nor gone: it waits unacknowledged for the 3600 s visibility timeout", {
    timeout: 60_000,
  }, async () => {
    const seen = await probe();
    expect(seen.starts).toEqual([{ retries: 0, redelivered: false }]);
    expect({ inQueue: seen.in_queue, unacked: seen.unacked }).toEqual({ inQueue: 0, unacked: 1 });
  });

  it('C2: once its visibility timeout has passed, a worker that starts polling restores it, with the same retry count, acks_late or not', {
    timeout: 60_000,
  }, async () => {
    for (const flags of [
      ['--visibility-timeout', '1'],
      ['--acks-late', '--visibility-timeout', '1'],
    ]) {
      const seen = await probe(...flags);
      expect(seen.starts, flags.join(' ')).toEqual([
        { retries: 0, redelivered: false },
        { retries: 0, redelivered: true },
      ]);
    }
  });
});
