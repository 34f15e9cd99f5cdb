import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DrillProcesses } from '../../../src/drill/runner/drill-processes.js';
import { Timeline } from '../../../src/drill/timeline.js';
import { type SpawnOptions, Supervisor } from '../../../src/harness/supervisor.js';
import { waitFor } from '../../../src/harness/wait-for.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/*
 * A drill process is "starting" from its spawn until its first log line: the
 * supervision loop's watchdog does not count that time (a loaded machine can
 * take seconds to start a worker; a soak saw a restarted worker's start end
 * a drill as "no progress"). Real processes: a fixture that stays silent until
 * told to speak.
 */

const SLOW_STARTER = join(import.meta.dirname, '../../fixtures/speaks-when-told.mjs');

let temp: ReturnType<typeof tempRunDir>;
let real: Supervisor;
beforeEach(() => {
  temp = tempRunDir('drill-processes');
  real = new Supervisor(temp.dir);
});
afterEach(async () => {
  await real.stopAll(500);
  temp.remove();
});

const RESTART = { after_ms: 0, max: 10 };

/** The real supervisor, running the fixture instead of the CLI (a role's arguments name its go file). */
function slowStarters(): Supervisor {
  return {
    spawn: (name: string, args: readonly string[], options: SpawnOptions = {}) => real.spawn(name, args, { ...options, script: SLOW_STARTER }),
  } as Supervisor;
}

describe('DrillProcesses.starting', () => {
  it('holds from the spawn until the process writes its first line, and again for a restart', async () => {
    const go = join(temp.dir, 'go');
    const processes = new DrillProcesses(slowStarters(), () => ({ stop() {} }), new Timeline(systemClock()), RESTART);
    processes.start({ name: 'w1', kind: 'worker', args: [go] });
    expect(processes.starting).toBe(true);
    writeFileSync(go, '');
    await waitFor(() => !processes.starting, { timeoutMs: 10_000, intervalMs: 5, what: 'w1 to say it is up' });
    // Killed (a crash fault) and started again by the restart rule: silent again until it is up.
    rmSync(go);
    const [first] = real.all();
    await real.crash(first!);
    await processes.tend(Date.now());
    await processes.tend(Date.now());
    expect(real.all()).toHaveLength(2);
    expect(processes.starting).toBe(true);
    writeFileSync(go, '');
    await waitFor(() => !processes.starting, { timeoutMs: 10_000, intervalMs: 5, what: 'w1#2 to say it is up' });
  });

  it('leaves producers to their start barrier', async () => {
    const processes = new DrillProcesses(slowStarters(), () => ({ stop() {} }), new Timeline(systemClock()), RESTART);
    processes.start({ name: 'p1', kind: 'producer', args: [join(temp.dir, 'never'), '--start-barrier', join(temp.dir, 'barrier')] });
    expect(processes.starting).toBe(false);
  });

  it('holds for a producer started to enqueue again (no barrier) until its first line', async () => {
    const processes = new DrillProcesses(slowStarters(), () => ({ stop() {} }), new Timeline(systemClock()), RESTART);
    processes.start({ name: 'p2', kind: 'producer', args: [join(temp.dir, 'never')] });
    expect(processes.starting).toBe(true);
  });
});
