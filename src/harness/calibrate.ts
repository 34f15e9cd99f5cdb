import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI_PATH } from './cli-path.js';

/*
 * --time-scale auto: before the first scenario, how busy is this machine right
 * now? Two processes are started at once as a drill starts its own (each
 * loads what a worker loads and says it is up), while the harness times its
 * own timers. On a quiet 2-core machine a start takes 150 to 300 ms and a
 * timer fires within a few ms; on a busy one both stretch, and so must every
 * duration of the drill (leases, timeouts, the watchdog), or a starved
 * process loses what a quiet one keeps. The scale chosen is the larger of the
 * two stretches, in steps of a half, from 1 (a quiet machine runs the
 * scenarios as written) to MAX_SCALE.
 */

/** A start this long or shorter is a quiet machine's. */
export const QUIET_START_MS = 400;

/** A timer this late or less is a quiet machine's. */
export const QUIET_LATENESS_MS = 15;

/** The most auto will stretch a drill: past it, the machine is too busy to drill on and the runs will say so (inconclusive). */
export const MAX_SCALE = 8;

/** What the calibration measured, and the scale it chose. */
export interface Calibration {
  /** The slower of two processes started at once: spawn to first line (ms). */
  startupMs: number;
  /** How late a 10 ms timer fired in the harness, the 90th percentile of 20 (ms). */
  timerLatenessMs: number;
  scale: number;
}

/** The scale a machine that measured so needs: the larger stretch, rounded up to a half, from 1 to MAX_SCALE. */
export function scaleFor(startupMs: number, timerLatenessMs: number): number {
  const stretch = Math.max(startupMs / QUIET_START_MS, 1 + Math.max(0, timerLatenessMs - QUIET_LATENESS_MS) / 50);
  return Math.min(MAX_SCALE, Math.max(1, Math.ceil(stretch * 2) / 2));
}

/** Starts one probe; resolves with the time from spawn to its first output, or rejects if it ends without a word. */
function probeStart(timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI_PATH, 'probe'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    timer.unref();
    let spoke = false;
    child.stdout.once('data', () => {
      spoke = true;
      resolve(Date.now() - started);
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      if (!spoke) reject(new Error(`the probe process (${CLI_PATH} probe) ended without starting`));
    });
  });
}

/** How late a timer of `ms` fires here, `count` times one after another: the 90th percentile. */
async function timerLateness(ms: number, count: number): Promise<number> {
  const late: number[] = [];
  for (let i = 0; i < count; i++) {
    const before = performance.now();
    await sleep(ms);
    late.push(Math.max(0, performance.now() - before - ms));
  }
  late.sort((a, b) => a - b);
  return Math.round(late[Math.floor(late.length * 0.9)] ?? 0);
}

/** Measures this machine now (about half a second on a quiet one) and picks the drill's time scale. */
export async function calibrate(): Promise<Calibration> {
  const [starts, timerLatenessMs] = await Promise.all([Promise.all([probeStart(30_000), probeStart(30_000)]), timerLateness(10, 20)]);
  const startupMs = Math.max(...starts);
  return { startupMs, timerLatenessMs, scale: scaleFor(startupMs, timerLatenessMs) };
}
