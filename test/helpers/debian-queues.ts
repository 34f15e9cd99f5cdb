import { spawnSync } from 'node:child_process';

/*
 * Celery and Sidekiq as Debian packages them (python3-celery and
 * python3-redis for /usr/bin/python3; ruby-sidekiq and ruby-redis-namespace for /usr/bin/ruby): the
 * children in examples/celery-queue and examples/sidekiq-queue, and their
 * probes, run with those interpreters. Where one is missing its tests are
 * skipped with one line saying so, unless QD_REQUIRE_DEBIAN_QUEUES=1 (.ci/run
 * sets it, and installs the packages).
 */

export const DEBIAN_PYTHON = '/usr/bin/python3';
export const DEBIAN_RUBY = '/usr/bin/ruby';

function runs(program: string, args: string[]): boolean {
  const result = spawnSync(program, args, { stdio: 'ignore', timeout: 20_000 });
  return result.status === 0;
}

const present = {
  celery: () => runs(DEBIAN_PYTHON, ['-c', 'import celery, redis']),
  sidekiq: () => runs(DEBIAN_RUBY, ['-e', 'require "sidekiq"; require "redis/namespace"']),
};

const packages = { celery: 'python3-celery python3-redis', sidekiq: 'ruby-sidekiq ruby-redis-namespace' };

/**
 * The gate of tests that need Debian's Celery or Sidekiq:
 * `describe.skipIf(skipWithout('celery', 'the Celery child'))`. True (skip
 * them) when the library does not load, and then prints one line naming them.
 */
export function skipWithout(queue: keyof typeof present, what: string): boolean {
  if (present[queue]()) return false;
  if (process.env.QD_REQUIRE_DEBIAN_QUEUES === '1')
    throw new Error(`QD_REQUIRE_DEBIAN_QUEUES=1, and ${queue} does not load (apt-get install ${packages[queue]})`);
  console.warn(`${queue} does not load here, so skipped: ${what} (apt-get install ${packages[queue]})`);
  return true;
}
