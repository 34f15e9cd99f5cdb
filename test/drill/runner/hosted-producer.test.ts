import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { HostedProducer, producerProcessNeeded } from '../../../src/drill/runner/hosted-producer.js';
import { Timeline } from '../../../src/drill/timeline.js';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import { EnqueueError } from '../../../src/port/adapter.js';
import { connectQueue } from '../../../src/port/connect-queue.js';
import { queueImpl } from '../../../src/queues/registry.js';
import type { DrillReport } from '../../../src/report/schema.js';
import { resolveScenarios } from '../../../src/scenarios/resolve.js';
import { ScenarioFileSchema } from '../../../src/scenarios/schema.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * A scenario's producer is the harness's own where nothing of the scenario can
 * reach it; any race, second wave, producer's fault point, network or server
 * fault, or a queue on a server keeps it a process.
 */

const temp = tempRunDir('hosted-producer');
afterAll(() => temp.remove());

function scenario(extra: Record<string, unknown>) {
  const file = ScenarioFileSchema.parse({
    version: 1,
    plans: {},
    scenarios: [{ name: 'one', description: 'd', jobs: [{ plan: 'write-file', expect: 'done' }], ...extra }],
  });
  return resolveScenarios(file, { seed: 7 })[0]!;
}

const embedded = queueImpl('reference');

describe('producerProcessNeeded', () => {
  it('lets the harness host the one producer of a scenario nothing can reach it in', () => {
    expect(producerProcessNeeded(scenario({}), embedded)).toBeNull();
    // A worker's fault is the worker's: the producer is still out of reach.
    expect(producerProcessNeeded(scenario({ faults: [{ at: 'after_claim', action: 'crash', first: 1 }] }), embedded)).toBeNull();
  });

  it('keeps a process wherever a race, a second wave, a fault or a server can reach the producer', () => {
    expect(producerProcessNeeded(scenario({ producers: 2 }), embedded)).toBe('2 producers race');
    expect(producerProcessNeeded(scenario({ enqueue_again: 'after_done' }), embedded)).toBe('its producers enqueue every key again');
    expect(producerProcessNeeded(scenario({}), queueImpl('postgres'))).toBe('the queue lives on a server');
    expect(producerProcessNeeded(scenario({}), { ...embedded, name: 'adapter:./my-queue.js' })).toBe("the queue is the user's own");
    expect(producerProcessNeeded(scenario({ faults: [{ at: 'enqueue', action: 'delay', ms: 5 }] }), embedded)).toMatch(
      /stops at a producer's point$/,
    );
    expect(producerProcessNeeded(scenario({ faults: [{ at: 'after_enqueue', action: 'crash', first: 1 }] }), embedded)).toMatch(
      /stops at a producer's point$/,
    );
    expect(producerProcessNeeded(scenario({ faults: [{ at: 'after_claim', action: 'partition', ms: 500 }] }), embedded)).toMatch(
      /reaches the network or a server$/,
    );
  });
});

describe('HostedProducer', () => {
  it("enqueues every job through the harness's connection and writes the producer's log line for line", async () => {
    const store = join(temp.dir, 'queue.db');
    const jobs = [
      { key: 'a', plan: { steps: [] }, maxAttempts: 2 },
      { key: 'b', plan: { steps: [] }, maxAttempts: 3 },
    ];
    const logFile = join(temp.dir, 'p1.1.log');
    const clock = systemClock();
    const queue = await connectQueue(queueImpl('reference'), store, { clock, random: seededRandom(1) });
    try {
      const timeline = new Timeline(clock);
      const producer = new HostedProducer({ name: 'p1', jobs, logFile, queue, clock, timeline });
      expect(producer.producing).toBe(true);
      producer.start();
      await producer.settled();
      expect([producer.producing, producer.error]).toEqual([false, null]);
      const lines = readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((l) => [l.event, l.key, l.created])).toEqual([
        ['enqueued', 'a', true],
        ['enqueued', 'b', true],
      ]);
      for (const line of lines) expect(line.answeredAt).toBeGreaterThanOrEqual(line.calledAt);
      expect(timeline.events.map((e) => e.detail)).toEqual([
        expect.stringMatching(/^p1, the harness's own producer .* released to begin enqueueing at \S+: 2 job\(s\)$/),
      ]);
      expect((await queue.snapshot({ history: false })).jobs.map((j) => j.key)).toEqual(['a', 'b']);
    } finally {
      await queue.close();
    }
  });

  it('writes a refused enqueue as the process does, and stops with an error on anything else', async () => {
    const jobs = [
      { key: 'a', plan: {}, maxAttempts: 1 },
      { key: 'b', plan: {}, maxAttempts: 1 },
    ];
    const clock = systemClock();
    const refusing = {
      enqueue: async (request: { key: string }) => {
        if (request.key === 'a') throw new EnqueueError(true, 'the store said no');
        throw new Error('connection lost');
      },
    };
    const logFile = join(temp.dir, 'p1.refused.log');
    const producer = new HostedProducer({ name: 'p1', jobs, logFile, queue: refusing, clock, timeline: new Timeline(clock) });
    producer.start();
    await producer.settled();
    expect(producer.error).toBe("p1, the harness's producer, failed: connection lost");
    expect(
      readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([{ event: 'enqueue-failed', key: 'a', definite: true, error: 'the store said no' }]);
  });
});

describe('a drill', () => {
  it('starts no producer process where the harness hosts it, and a real one where a fault stops at its point', { timeout: 120_000 }, async () => {
    const file = join(temp.dir, 'scenarios.yaml');
    writeFileSync(
      file,
      `version: 1
scenarios:
  - name: hosted
    description: Nothing reaches the producer.
    jobs: [{ plan: write-file, expect: done }]
  - name: own-process
    description: A delay at the producer's point, so the producer is a process.
    jobs: [{ plan: write-file, expect: done }]
    faults: [{ at: enqueue, action: delay, ms: 20 }]
`,
    );
    const out = join(temp.dir, 'runs');
    const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--out', out], { reject: false, env: { CI: 'true' } });
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as DrillReport;
    const [hosted, own] = report.scenarios;
    expect([hosted!.verdict, own!.verdict], result.stderr).toEqual(['pass', 'pass']);
    const spawned = (s: typeof hosted) => s!.timeline.filter((e) => e.kind === 'spawn').map((e) => e.detail);
    expect(spawned(hosted)).not.toContain('producer p1');
    expect(spawned(own)).toContain('producer p1');
    expect(hosted!.timeline.some((e) => /the harness's own producer/.test(e.detail))).toBe(true);
    // The judge read who created the job from the hosted producer's log, as from a process's: with none read, the
    // store's job would have no producer that created it, and dedupe-on-enqueue would break.
    expect(hosted!.invariants.find((v) => v.id === 'dedupe-on-enqueue')?.status).toBe('held');
  });
});
