import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import type { DrillReport } from '../../../src/report/schema.js';
import { streamNames } from '../../adapters/nats-jetstream/fresh-queue.js';
import { skipWithoutNats } from '../../helpers/brokers.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * Shipped scenarios on NATS JetStream, through the CLI, as real child
 * processes (dist/: build first). What they showed, and why:
 *   - crash-after-claim: the worker SIGKILLed right after its claim leaves
 *     its delivery unacked; JetStream delivers the message again once its ack
 *     wait (the lease) passes, to the other worker, and it is done.
 *   - zombie-complete: the paused worker wakes once the job was delivered
 *     again and acks its old delivery; JetStream accepts that ack (probe N1)
 *     and the message is gone while its new holder works on it. The world's
 *     record of each write against each delivery, and the record's history
 *     (a done written by a holder that was replaced), break single-holder.
 */
describe.skipIf(skipWithoutNats('shipped drills on the nats-jetstream queue (test/adapters/nats-jetstream)'))(
  'nats-jetstream: shipped drills',
  () => {
    let run: ReturnType<typeof tempRunDir> | undefined;
    afterEach(() => run?.remove());

    it('crash-after-claim passes; zombie-complete fails on single-holder (JetStream accepts a stale ack); no stream is left', async () => {
      run = tempRunDir('nats-drill');
      const only = 'crash-after-claim,zombie-complete';
      const result = await execa(
        process.execPath,
        [CLI_PATH, 'run', 'scenarios.yaml', '--only', only, '--queue', 'nats-jetstream', '--parallel', '1', '--out', run.dir],
        { reject: false },
      );
      expect(result.exitCode, result.stderr).toBe(1);
      const report = JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport;
      const verdicts = Object.fromEntries(report.scenarios.map((s) => [s.name, s.verdict]));
      expect(verdicts, result.stdout).toEqual({ 'crash-after-claim': 'pass', 'zombie-complete': 'fail' });
      const zombie = report.scenarios.find((s) => s.name === 'zombie-complete')!;
      const single = zombie.invariants.find((i) => i.id === 'single-holder')!;
      expect(single.status).toBe('broken');
      expect(single.evidence.join('\n')).toMatch(/a stale holder's write|another holder's write, and the queue applied it/);
      const crash = report.scenarios.find((s) => s.name === 'crash-after-claim')!;
      expect(crash.invariants.filter((i) => i.status === 'broken')).toEqual([]);
      // Each drill's stream is named from its scenario and the run's stamp, made readable (src/adapters/nats-jetstream/names.ts).
      const stamp = readdirSync(run.dir).find((name) => name !== 'latest')!;
      const left = await streamNames();
      for (const name of ['crash-after-claim', 'zombie-complete']) {
        const readable = `${name} ${stamp}`.replace(/[^A-Za-z0-9]+/g, '_').slice(0, 40);
        expect(left.filter((stream) => stream.startsWith(`QD_${readable}`))).toEqual([]);
      }
    });
  },
);
