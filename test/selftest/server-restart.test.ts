import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport } from '../../src/report/schema.js';
import { skipWithoutNats, skipWithoutRabbitmq } from '../helpers/brokers.js';
import { skipWithoutPg } from '../helpers/postgres.js';
import { REDIS_URL, skipWithoutRedis } from '../helpers/redis.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * restart_server for real: the machine's PostgreSQL restarted mid-drill,
 * every connection of every process cut. It lives in the self-test project,
 * which runs one file at a time after every other test file, because a
 * restart cuts every other test's connections too.
 */

/** The running Redis server's run id: a new one each time the server starts. */
async function redisRunId(): Promise<string> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    return /run_id:(\w+)/.exec(await client.info('server'))?.[1] ?? '';
  } finally {
    client.disconnect();
  }
}

/** The oldest running process named `name` (pgrep): a new pid once a server was started again. */
function serverPid(name: string): string {
  return execFileSync('pgrep', ['-o', '-x', name], { encoding: 'utf8' }).trim();
}

const drill = async (args: string[]) => {
  const run = tempRunDir('server-restart');
  try {
    const result = await execa(
      process.execPath,
      [CLI_PATH, 'run', 'scenarios.yaml', '--only', 'queue-server-restart', '--parallel', '1', '--out', run.dir, ...args],
      { reject: false, env: { CI: 'true' } },
    );
    const report = JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport;
    return { exitCode: result.exitCode, scenario: report.scenarios[0]! };
  } finally {
    run.remove();
  }
};

describe('the queue server restarted mid-drill', () => {
  it('is not supported on an embedded queue, and not judged without --restart-servers', async () => {
    const embedded = await drill([]);
    expect(embedded.scenario.verdict).toBe('not_supported');
    expect(embedded.scenario.notSupported).toMatch(/reference has no server the harness can restart/);
    expect(embedded.exitCode).toBe(1);
  });

  it.skipIf(skipWithoutPg('restarting PostgreSQL mid-drill'))(
    'on postgres: refused without the flag; with it, every connection is cut and every job still ends done once',
    { timeout: 120_000 },
    async () => {
      const refused = await drill(['--queue', 'postgres']);
      expect(refused.scenario.notJudged).toMatch(/--restart-servers/);
      const restarted = await drill(['--queue', 'postgres', '--restart-servers']);
      expect(restarted.scenario.verdict, JSON.stringify(restarted.scenario.invariants.filter((v) => v.status === 'broken'))).toBe('pass');
      expect(restarted.scenario.timeline.some((e) => e.kind === 'server-restart')).toBe(true);
      // The restart cut connections for real: some process lost its own, or the harness had to try again.
      const cut = restarted.scenario.timeline.filter(
        (e) => (e.kind === 'exit' && /code [1-9]/.test(e.detail)) || /did not answer the harness/.test(e.detail),
      );
      expect(cut.length).toBeGreaterThan(0);
      expect(restarted.scenario.jobs.every((job) => job.actual.status === 'done')).toBe(true);
    },
  );

  it.skipIf(skipWithoutRedis('restarting Redis mid-drill'))(
    'on bullmq: Redis restarted (SHUTDOWN SAVE, started again as it was), every connection cut, every job still ends done once',
    { timeout: 120_000 },
    async () => {
      const before = await redisRunId();
      const restarted = await drill(['--queue', 'bullmq', '--restart-servers']);
      expect(restarted.scenario.verdict, JSON.stringify(restarted.scenario.invariants.filter((v) => v.status === 'broken'))).toBe('pass');
      expect(restarted.scenario.timeline.some((e) => e.kind === 'server-restart')).toBe(true);
      // Another server process answers now (a new run id), with the same settings.
      expect(await redisRunId()).not.toBe(before);
      expect(restarted.scenario.jobs.every((job) => job.actual.status === 'done')).toBe(true);
    },
  );

  it.skipIf(skipWithoutRabbitmq('restarting RabbitMQ mid-drill'))(
    'on rabbitmq: the broker restarted (rabbitmqctl stop, rabbitmq-server -detached), every consumer reconnects, every job still ends done once',
    { timeout: 120_000 },
    async () => {
      const before = serverPid('beam.smp');
      const restarted = await drill(['--queue', 'rabbitmq', '--restart-servers']);
      expect(restarted.scenario.verdict, JSON.stringify(restarted.scenario.invariants.filter((v) => v.status === 'broken'))).toBe('pass');
      expect(restarted.scenario.timeline.some((e) => e.kind === 'server-restart')).toBe(true);
      expect(serverPid('beam.smp')).not.toBe(before);
      expect(restarted.scenario.jobs.every((job) => job.actual.status === 'done')).toBe(true);
    },
  );

  it.skipIf(skipWithoutNats('restarting NATS mid-drill'))(
    'on nats-jetstream: the server restarted (stopped, started again with its own command line), the stream kept, every job still ends done once',
    { timeout: 120_000 },
    async () => {
      const before = serverPid('nats-server');
      const restarted = await drill(['--queue', 'nats-jetstream', '--restart-servers']);
      expect(restarted.scenario.verdict, JSON.stringify(restarted.scenario.invariants.filter((v) => v.status === 'broken'))).toBe('pass');
      expect(restarted.scenario.timeline.some((e) => e.kind === 'server-restart')).toBe(true);
      expect(serverPid('nats-server')).not.toBe(before);
      expect(restarted.scenario.jobs.every((job) => job.actual.status === 'done')).toBe(true);
    },
  );
});
