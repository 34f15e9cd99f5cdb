import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport, ScenarioReport } from '../../src/report/schema.js';
import { skipWithoutPg } from '../helpers/postgres.js';
import { skipWithoutRedis } from '../helpers/redis.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The shipped network-fault scenarios, drilled as a user drills them: each
 * process of the drill reaches its queue's server through a fault proxy of its
 * own. On PostgreSQL the reference passes every one, each fault fired and on
 * the timeline; a variant that trusts the lease it had before a partition is
 * caught by single-holder; an embedded queue is not supported; a drop that
 * meets no request proves nothing and says so.
 */

const NETWORK = [
  'worker-partitioned-past-lease',
  'complete-reply-lost',
  'connections-reset-before-complete',
  'slow-link-past-renewal',
  'sweep-partitioned-before-release',
];

async function drill(file: string, only: readonly string[], queue: string): Promise<{ exitCode: number; scenarios: Map<string, ScenarioReport> }> {
  const run = tempRunDir('network-faults');
  try {
    const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--only', only.join(','), '--queue', queue, '--out', run.dir], {
      reject: false,
      env: { CI: 'true' },
    });
    const report = JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport;
    return { exitCode: result.exitCode ?? -1, scenarios: new Map(report.scenarios.map((s) => [s.name, s])) };
  } finally {
    run.remove();
  }
}

const broken = (scenario: ScenarioReport) => scenario.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
const networkLines = (scenario: ScenarioReport) => scenario.timeline.filter((e) => e.kind === 'network').map((e) => e.detail);

describe('network faults between the drill processes and their server', () => {
  it('are not supported on an embedded queue', async () => {
    const { scenarios } = await drill('scenarios.yaml', NETWORK, 'sqlite');
    for (const name of NETWORK) {
      expect(scenarios.get(name)?.verdict, name).toBe('not_supported');
      expect(scenarios.get(name)?.notSupported).toMatch(/reaches no server over the network/);
    }
  });

  it.skipIf(skipWithoutPg('network faults on postgres'))(
    'on postgres: every scenario passes, each fault fired and drawn on the timeline (the heal with the bytes held, the reply swallowed)',
    { timeout: 120_000 },
    async () => {
      const { exitCode, scenarios } = await drill('scenarios.yaml', NETWORK, 'postgres');
      for (const name of NETWORK) {
        const scenario = scenarios.get(name)!;
        expect(scenario.verdict, `${name}: ${JSON.stringify(scenario.invariants.filter((i) => i.status === 'broken'))}`).toBe('pass');
        expect(scenario.unfired, name).toEqual([]);
      }
      expect(exitCode).toBe(0);
      const partitioned = networkLines(scenarios.get('worker-partitioned-past-lease')!);
      expect(partitioned).toContainEqual(expect.stringMatching(/^partitioned from its servers at after_verify .* until the job is claimed again/));
      expect(partitioned).toContainEqual(expect.stringMatching(/^QD_PG_URL: healed, [1-9]\d* bytes held go through$/));
      // The held complete reached the server after the next holder's claim, and was refused.
      const job = scenarios.get('worker-partitioned-past-lease')!.jobs[0]!;
      expect(job.events.some((e) => e.kind === 'refused' && /complete refused/.test(e.reason ?? ''))).toBe(true);
      expect(networkLines(scenarios.get('complete-reply-lost')!)).toContainEqual(
        // The done and the next claim, one statement (the reference's complete-and-claim.ts), named by its start.
        expect.stringMatching(
          /^QD_PG_URL: reply dropped, connection \d+: the reply to WITH held AS \(.{40,}… \(\d+ bytes\) swallowed, then the connection reset$/,
        ),
      );
      expect(networkLines(scenarios.get('connections-reset-before-complete')!)).toContainEqual(
        expect.stringMatching(/^QD_PG_URL: reset, connections /),
      );
    },
  );

  it.skipIf(skipWithoutPg('a broken variant under a partition'))(
    'catches a queue whose writes trust the lease they had before a partition: single-holder breaks',
    { timeout: 60_000 },
    async () => {
      const { scenarios } = await drill('scenarios.yaml', ['worker-partitioned-past-lease'], 'lease-trusted-after-partition');
      const scenario = scenarios.get('worker-partitioned-past-lease')!;
      expect(scenario.verdict).toBe('fail');
      expect(broken(scenario)).toContain('single-holder');
    },
  );

  it.skipIf(skipWithoutPg('a drop that meets no request'))(
    'counts a drop no request met as a fault that never fired: the drill is vacuous',
    { timeout: 60_000 },
    async () => {
      const { scenarios } = await drill('test/fixtures/scenarios/drop-reply-missed.yaml', ['drop-reply-missed'], 'postgres');
      const scenario = scenarios.get('drop-reply-missed')!;
      expect(scenario.verdict).toBe('vacuous');
      expect(scenario.unfired).toEqual([
        expect.stringMatching(/drop_reply at before_complete .* never fired: 1 hit, 1 of them fired and did nothing/),
      ]);
    },
  );

  it.skipIf(skipWithoutRedis('network faults on bullmq'))(
    "on bullmq: the scenarios it can run pass, moveToFinished's reply is the one swallowed, and the coordinator's sweep is not judged",
    { timeout: 120_000 },
    async () => {
      const { scenarios } = await drill('scenarios.yaml', NETWORK, 'bullmq');
      for (const name of NETWORK.filter((n) => n !== 'sweep-partitioned-before-release')) {
        const scenario = scenarios.get(name)!;
        expect(scenario.verdict, `${name}: ${JSON.stringify(scenario.invariants.filter((i) => i.status === 'broken'))}`).toBe('pass');
      }
      expect(scenarios.get('sweep-partitioned-before-release')!.notJudged).toMatch(/takes a dead holder's job back itself/);
      expect(networkLines(scenarios.get('complete-reply-lost')!)).toContainEqual(
        expect.stringMatching(/^QD_REDIS_URL: reply dropped, connection \d+: the reply to moveToFinished \(\d+ bytes\) swallowed/),
      );
    },
  );
});
