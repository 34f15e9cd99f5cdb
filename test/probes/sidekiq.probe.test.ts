import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { DEBIAN_RUBY, skipWithout } from '../helpers/debian-queues.js';
import { REDIS_URL, skipWithoutRedis } from '../helpers/redis.js';

/*
 * A probe of Sidekiq 6.4.1 alone (Debian's ruby-sidekiq, BasicFetch, under a
 * redis-namespace of its own; no queue-drill code): what the Sidekiq column of
 * a comparison rests on. examples/sidekiq-queue/probe_lost_on_kill.rb pushes a
 * job, starts a Sidekiq process that takes it, SIGKILLs it mid-job, starts a
 * second one (which runs a canary job, so it is fetching) and looks everywhere
 * the job could be; its header cites the source line of each fact.
 */

const PROBE = join(import.meta.dirname, '../../examples/sidekiq-queue/probe_lost_on_kill.rb');

describe.skipIf(skipWithoutRedis('the Sidekiq probe') || skipWithout('sidekiq', 'the Sidekiq probe'))('Sidekiq alone', () => {
  it("S1: a SIGKILLed process's job is lost: never run again, in no queue, retry, schedule or dead set", { timeout: 90_000 }, async () => {
    const { stdout } = await execa(DEBIAN_RUBY, [PROBE, REDIS_URL]);
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(seen).toMatchObject({
      fetch: 'BasicFetch',
      started: true,
      killed_mid_job: true,
      second_process_ran_canary: true,
      runs: 1,
      run_again: false,
      in_queue: false,
      in_retry: false,
      in_schedule: false,
      in_dead: false,
      lost: true,
    });
  });
});
