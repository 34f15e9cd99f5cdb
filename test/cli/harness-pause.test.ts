import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { waitFor } from '../../src/harness/wait-for.js';
import type { DrillReport } from '../../src/report/schema.js';
import { cpuTicks, isRunning, isStopped, processesMentioning, procState } from '../helpers/processes.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A machine paused by its host (a virtual machine snapshotted, as happened in
 * a 300-run soak on this machine) resumes with its clock moved on and nothing
 * having run. The drill must not charge that time to the queue: the watchdog
 * would call it "no progress", and a sound queue would fail. Here every
 * process of a drill is frozen together (SIGSTOP) for longer than the
 * watchdog's limit, then let go: the drill still passes, and its timeline says
 * the harness was paused.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';

/**
 * Sends `signal` to `pid` unless it is already gone: a process that was ending
 * on its own when the list was taken (a producer done with its keys, the
 * crashed worker) is reaped by the harness once it runs again, and is no part
 * of the pause.
 */
function signalIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

/** How long every process of the drill stays frozen: longer than the scenario's no_progress_ms (2,500 ms). */
const PAUSE_MS = 4_000;

describe('a drill whose machine is paused', () => {
  it('does not count the pause as no progress: a sound queue still passes, and the timeline says so', { timeout: 60_000 }, async () => {
    const run = tempRunDir('harness-pause');
    try {
      const drill = execa(process.execPath, [CLI_PATH, 'run', SMALL, '--only', 'crash-after-claim', '--seed', '7', '--out', run.dir], {
        reject: false,
      });
      // The killed worker restarted: its job now waits out its lease (300 ms), so the drill is mid-way.
      await waitFor(() => filesUnder(run.dir).some((file) => file.endsWith('w1.2.log') || file.endsWith('w2.2.log')), {
        timeoutMs: 20_000,
        intervalMs: 2,
        what: 'the killed worker to start again',
      });
      const frozen = processesMentioning(run.dir);
      expect(frozen).toContain(drill.pid);
      for (const pid of frozen) signalIfAlive(pid, 'SIGSTOP');
      const pausedAt = Date.now();
      // The pause: held until every frozen process is seen stopped and the pause has lasted longer than the
      // scenario's no_progress_ms (2,500 ms) with room to spare; a process found running again fails the wait.
      // A SIGSTOP takes effect when the process is next scheduled: a process counts as running again only once it
      // has been seen stopped.
      const seenStopped = new Set<number>();
      await waitFor(
        () => {
          for (const pid of frozen) if (isStopped(pid)) seenStopped.add(pid);
          const running = [...seenStopped].filter((pid) => isRunning(pid) && !isStopped(pid));
          if (running.length > 0) throw new Error(`processes ${running.join(', ')} run again during the pause`);
          const allStopped = frozen.every((pid) => seenStopped.has(pid) || !isRunning(pid));
          return allStopped && Date.now() - pausedAt >= PAUSE_MS;
        },
        { timeoutMs: PAUSE_MS + 10_000, intervalMs: 20, what: 'a pause longer than the watchdog allows' },
      );
      // The harness wakes first and looks around before the others do: all it can see is a drill in which nothing
      // has changed for four seconds. Seen as CPU it has used since (one clock tick), or as it asleep again after
      // running (state S, no longer T): it may wake inside a wait for a SQLite lock a frozen process holds (its
      // waits draw up to 8 ms, src/reference/sqlite/busy.ts), using little CPU until the others run; CI saw it
      // use under a tick in 10 s.
      const asleep = cpuTicks(drill.pid!) ?? 0;
      process.kill(drill.pid!, 'SIGCONT');
      await waitFor(() => (cpuTicks(drill.pid!) ?? Number.POSITIVE_INFINITY) >= asleep + 1 || procState(drill.pid!) === 'S', {
        timeoutMs: 10_000,
        intervalMs: 5,
        what: 'the harness to run after its pause',
      });
      for (const pid of frozen) signalIfAlive(pid, 'SIGCONT');
      const result = await drill;
      const report = JSON.parse(readFileSync(join(run.dir, 'latest', 'report.json'), 'utf8')) as DrillReport;
      const [scenario] = report.scenarios;
      expect(scenario!.verdict, result.stderr).toBe('pass');
      expect(scenario!.timeline).toContainEqual(
        expect.objectContaining({ kind: 'stall', detail: expect.stringMatching(/^the harness did not run for \d{4} ms/) }),
      );
      expect(result.exitCode).toBe(0);
    } finally {
      run.remove();
    }
  });
});
