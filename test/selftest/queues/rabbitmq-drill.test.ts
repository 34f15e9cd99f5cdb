import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import type { DrillReport } from '../../../src/report/schema.js';
import { rabbitmqQueuesStartingWith } from '../../adapters/rabbitmq/broker-queues.js';
import { skipWithoutRabbitmq } from '../../helpers/brokers.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * Shipped scenarios on RabbitMQ, through the CLI, as real child processes
 * (dist/: build first). What they show, and why:
 *   - crash-after-claim: the SIGKILLed worker's connection closes and RabbitMQ
 *     gives its message back at once (redelivered, x-delivery-count + 1).
 *   - zombie-complete-after-done: the SIGSTOPped worker's connection goes
 *     silent past its heartbeat; RabbitMQ closes it and hands the message to
 *     another worker, which finishes it; the zombie's late ack meets a closed
 *     channel: refused, and recorded in the history.
 *   - poison-job-queue-alone: every holder of job 1 dies; the quorum queue
 *     dead-letters it at its x-delivery-limit after the third delivery.
 * Every duration is stretched ×7.5: a frozen consumer is found by whole-second heartbeats.
 */
/** The queues on the broker named for these scenarios' drills. */
async function drillQueues(only: string): Promise<string[]> {
  const names = only.split(',');
  return (await rabbitmqQueuesStartingWith('qd.')).filter((queue) => names.some((name) => queue.startsWith(`qd.${name}-`)));
}

describe.skipIf(skipWithoutRabbitmq('shipped drills on the rabbitmq queue (test/selftest/queues)'))('rabbitmq: shipped drills', () => {
  let run: ReturnType<typeof tempRunDir> | undefined;
  afterEach(() => run?.remove());

  it('takes a dead worker’s message back, refuses a zombie’s late ack and records it, dead-letters a poison job at its limit, does not drill dedupe; no queue is left', async () => {
    run = tempRunDir('rabbitmq-drill');
    const only = 'crash-after-claim,zombie-complete-after-done,poison-job-queue-alone,concurrent-enqueue';
    const before = await drillQueues(only);
    const result = await execa(process.execPath, [CLI_PATH, 'run', 'scenarios.yaml', '--only', only, '--queue', 'rabbitmq', '--out', run.dir], {
      reject: false,
    });
    const report = JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport;
    const byName = new Map(report.scenarios.map((s) => [s.name, s]));
    expect(Object.fromEntries([...byName].map(([name, s]) => [name, s.verdict])), result.stdout + result.stderr).toEqual({
      'crash-after-claim': 'pass',
      'zombie-complete-after-done': 'pass',
      'poison-job-queue-alone': 'pass',
      // It checks dedupe-on-enqueue, which RabbitMQ does not do: not supported, with the reason, never failed.
      'concurrent-enqueue': 'not_supported',
    });
    expect(byName.get('concurrent-enqueue')!.notSupported).toMatch(/^the scenario checks dedupe-on-enqueue, and RabbitMQ dedupes nothing on publish/);
    const zombie = byName.get('zombie-complete-after-done')!;
    expect(zombie.invariants.find((i) => i.id === 'single-holder')).toMatchObject({ status: 'held' });
    expect(zombie.unjudgedChecks).toEqual([]);
    const poison = byName.get('poison-job-queue-alone')!;
    expect(poison.queueSettings).toMatchObject({ 'x-queue-type': 'quorum', 'x-delivery-limit': '2 (max_attempts 3)' });
    expect(poison.jobs.find((j) => j.actual.status === 'review')?.actual.reason).toMatch(
      /^dead-lettered by RabbitMQ at its x-delivery-limit: .* on its last attempt \(3 of 3\)$/,
    );
    // Each drill's queues are named from its scenario's name (src/adapters/rabbitmq/names.ts): none is left that was not there before.
    expect((await drillQueues(only)).filter((name) => !before.includes(name))).toEqual([]);
  });
});
