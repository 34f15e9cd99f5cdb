import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { REDIS_URL } from './redis.js';

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

/** The children run on the tests' Redis. */
const CHILD_ENV = { QD_REDIS_URL: REDIS_URL };

/** protocol-check's results on the child `command` (a program and its arguments, split on spaces). */
export async function protocolCheckResults(command: string): Promise<Array<{ name: string; status: string; detail: string }>> {
  const { stdout } = await execa(process.execPath, [CLI_PATH, 'protocol-check', '--json', '--', ...command.split(' ')], { env: CHILD_ENV });
  return (JSON.parse(stdout) as { results: Array<{ name: string; status: string; detail: string }> }).results;
}

/** The scenarios of a drill of the shipped scenarios on the child `command`, by name: `run … --json`'s report. */
export async function drillScenarios(command: string, outDir: string, ...flags: string[]): Promise<Record<string, { verdict: string }>> {
  const args = ['run', 'scenarios.yaml', '--queue', `process:${command}`, '--out', outDir, '--json', ...flags];
  const { stdout } = await execa(process.execPath, [CLI_PATH, ...args], { env: CHILD_ENV, reject: false });
  const report = JSON.parse(stdout) as { scenarios: Array<{ name: string; verdict: string }> };
  return Object.fromEntries(report.scenarios.map((s) => [s.name, s]));
}
