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

describe('a process that cannot start', () => {
  it("ends the drill as the harness's error after three failed starts in a row, naming the error its stderr gave", async () => {
    // The entry is missing (a build replaced under a running drill did this): Node prints its stack and exits 1.
    const missing = join(temp.dir, 'gone', 'child-main.js');
    const supervisor = {
      spawn: (name: string, args: readonly string[], options: SpawnOptions = {}) => real.spawn(name, args, { ...options, script: missing }),
    };
    const timeline = new Timeline(systemClock());
    const processes = new DrillProcesses(supervisor as Supervisor, () => ({ stop() {} }), timeline, RESTART);
    processes.start({ name: 'w1', kind: 'worker', args: [] });
    const failure = await waitFor(
      async () => {
        try {
          await processes.tend(Date.now());
          return false;
        } catch (error) {
          return error as Error & { code?: string };
        }
      },
      { timeoutMs: 20_000, intervalMs: 5, what: 'the third failed start' },
    );
    expect(failure.code).toBe('QD_PROCESS_NEVER_STARTED');
    expect(failure.message).toMatch(/^worker w1 exited 3 times in a row before its first line \(Error: Cannot find module '.*child-main\.js'\)/);
    expect(real.all()).toHaveLength(3);
    // Each exit on the timeline says why in the error's own words, not Node's version line after the stack.
    const exits = timeline.events.filter((e) => e.kind === 'exit').map((e) => e.detail);
    expect(exits[0]).toMatch(/^exit code 1: Error: Cannot find module/);
  });

  it("leaves a start that failed in the queue's hands (the CLI's own error: its server away) to the restart rule", async () => {
    const refused = join(temp.dir, 'refused.mjs');
    writeFileSync(
      refused,
      "process.stderr.write('queue-drill: could not reach the queue (connect ECONNREFUSED 127.0.0.1:5432) [QD_X]\\n'); process.exit(3);\n",
    );
    const supervisor = {
      spawn: (name: string, args: readonly string[], options: SpawnOptions = {}) => real.spawn(name, args, { ...options, script: refused }),
    };
    const processes = new DrillProcesses(supervisor as Supervisor, () => ({ stop() {} }), new Timeline(systemClock()), RESTART);
    processes.start({ name: 'w1', kind: 'worker', args: [] });
    await waitFor(
      async () => {
        await processes.tend(Date.now());
        return real.all().length >= 5;
      },
      { timeoutMs: 20_000, intervalMs: 5, what: 'five starts' },
    );
  });
});
