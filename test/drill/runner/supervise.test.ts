import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DrillProcesses } from '../../../src/drill/runner/drill-processes.js';
import { ProducerRelease } from '../../../src/drill/runner/producer-release.js';
import { RestartWindow } from '../../../src/drill/runner/restart-window.js';
import { supervise } from '../../../src/drill/runner/supervise.js';
import { Timeline } from '../../../src/drill/timeline.js';
import type { Schedule } from '../../../src/explore/schedule.js';
import { exploreFile, scheduleScenario } from '../../../src/explore/to-scenario.js';
import { type SpawnOptions, Supervisor } from '../../../src/harness/supervisor.js';
import { waitFor } from '../../../src/harness/wait-for.js';
import { systemClock } from '../../../src/kernel/clock.js';
import type { QueueConnection } from '../../../src/port/adapter.js';
import { resolveScenarios } from '../../../src/scenarios/resolve.js';
import { ScenarioFileSchema } from '../../../src/scenarios/schema.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * The supervision loop with a second wave of producers (enqueue_again) that
 * takes long to start: a queue whose every job is done, a producer started to
 * enqueue again that stays silent (a fixture, silent until told) for longer
 * than the watchdog's window and than the drill's whole timeout. Its start-up
 * is the machine's time: the drill must end at rest once it has spoken and
 * ended, neither as no progress nor at the deadline.
 */

const SLOW_STARTER = join(import.meta.dirname, '../../fixtures/speaks-when-told.mjs');
const NO_PROGRESS_MS = 300;
const TIMEOUT_MS = 2_000;

let temp: ReturnType<typeof tempRunDir>;
let real: Supervisor;
beforeEach(() => {
  temp = tempRunDir('supervise');
  real = new Supervisor(temp.dir);
});
afterEach(async () => {
  await real.stopAll(500);
  temp.remove();
});

/** One job, every producer of the first wave done: what the queue shows is the same at every read (no progress). */
function scenario() {
  const schedule: Schedule = { faults: [], jobs: ['write-file'], workers: 1, producers: 1 };
  const file = ScenarioFileSchema.parse(exploreFile([scheduleScenario(schedule, 'again', 'a second wave')]));
  const [resolved] = resolveScenarios(file, { seed: 1, queue: 'reference' });
  return {
    ...resolved!,
    settings: { ...resolved!.settings, enqueue_again: 'after_done' as const, no_progress_ms: NO_PROGRESS_MS, timeout_ms: TIMEOUT_MS },
  };
}

const doneQueue = {
  snapshot: async () => ({ jobs: [{ id: '1', key: 'k1', status: 'done', outcome: 'done' }] }),
  progress: async () => 'unchanged',
} as unknown as QueueConnection;

describe('supervise with a second wave of producers (enqueue_again)', () => {
  it('charges neither the watchdog nor the deadline with their start-up, until each has said its first line', { timeout: 30_000 }, async () => {
    const go = join(temp.dir, 'go');
    const timeline = new Timeline(systemClock());
    const slow = { spawn: (name: string, args: readonly string[], o: SpawnOptions = {}) => real.spawn(name, args, { ...o, script: SLOW_STARTER }) };
    const processes = new DrillProcesses(slow as Supervisor, () => ({ stop() {} }), timeline, { after_ms: 20, max: 10 });
    const ending = supervise({
      scenario: scenario(),
      queue: doneQueue,
      onServer: false,
      processes,
      // No producers of the first wave: released at the first tick, so the deadline is TIMEOUT_MS from there.
      producerRelease: new ProducerRelease(join(temp.dir, 'barrier'), [], timeline),
      timeline,
      held: () => 0,
      signal: new AbortController().signal,
      deadline: Date.now() + TIMEOUT_MS,
      again: [{ name: 'p2', kind: 'producer', args: [go, 'exit'] }],
      restarts: new RestartWindow(),
    });
    await waitFor(() => timeline.events.some((e) => e.kind === 'enqueue-again'), { timeoutMs: 10_000, intervalMs: 5, what: 'the second wave' });
    const startedAt = Date.now();
    let settled = false;
    void ending.finally(() => {
      settled = true;
    });
    // Silent past the watchdog's window and past the drill's deadline (counted from the first wave's release): the
    // wait is that span passing with the drill still waiting; a drill that ended meanwhile fails it at once.
    await waitFor(
      () => {
        if (settled) throw new Error('the drill ended while its second wave was still starting');
        return Date.now() - startedAt > TIMEOUT_MS + 500;
      },
      { timeoutMs: TIMEOUT_MS + 10_000, intervalMs: 20, what: 'the silence to outlast the deadline' },
    );
    expect(Date.now() - startedAt).toBeGreaterThan(TIMEOUT_MS);
    writeFileSync(go, '');
    expect(await ending, JSON.stringify(timeline.events, null, 1)).toBe('at-rest');
    expect(timeline.events.map((e) => e.kind)).not.toContain('watchdog');
  });
});
