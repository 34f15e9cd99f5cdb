import { appendFileSync } from 'node:fs';

/*
 * A process's own measure of the time it was not run when it should have
 * been. A timer armed every TICK_MS fires late by however long the process
 * could not run it: its event loop was held (a synchronous wait, a blocked
 * loop) or the machine did not schedule it (a busy CPU). The CPU time the
 * process itself spent meanwhile is its own work (loading code, a long
 * computation), not starvation, and is taken off. Every lateness of at
 * least STARVED_MS left is one starved span, appended as a JSON line to the file
 * the harness names in QD_STARVED_LOG (a file of its own, so the process's
 * log stays its own and its first line still says it is up). The harness
 * reads the spans after the drill (src/drill/starvation-spans.ts); the
 * judge weighs them (src/judge/starvation.ts).
 *
 * Real time, not the process's clock: a worker given a skewed clock on
 * purpose is still starved in the machine's time.
 */

/** The environment variable naming the file a process writes its starved spans to. */
export const STARVED_LOG_ENV = 'QD_STARVED_LOG';

/** How often the watch looks. */
export const TICK_MS = 20;

/** A lateness at least this long is a starved span; a shorter one is the machine's ordinary jitter. */
export const STARVED_MS = 50;

/** One starved span as a process writes it: when it should have run, when it did, how long it was not run (epoch ms). */
export interface StarvedLine {
  from: number;
  to: number;
  /** The lateness less the CPU time the process spent on its own work meanwhile. */
  lateMs: number;
}

/** The CPU time this process has used, in ms (user and system, every thread). */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Starts the watch when the harness asked for one (QD_STARVED_LOG set); a
 * no-op otherwise. The timer is unref'd: it never keeps a process alive.
 */
export function watchStarvation(
  options: { file?: string | undefined; now?: () => number; cpu?: () => number; tickMs?: number; starvedMs?: number } = {},
): { stop(): void } {
  const file = options.file ?? process.env[STARVED_LOG_ENV];
  if (!file) return { stop() {} };
  const now = options.now ?? Date.now;
  const cpu = options.cpu ?? cpuMs;
  const tickMs = options.tickMs ?? TICK_MS;
  const starvedMs = options.starvedMs ?? STARVED_MS;
  let expected = now() + tickMs;
  let used = cpu();
  const timer = setInterval(() => {
    const at = now();
    const usedNow = cpu();
    // Of the time since the last tick, what the process spent computing was its own; the rest past the tick, nobody ran it.
    const lateMs = Math.round(at - expected - Math.max(0, usedNow - used - tickMs));
    used = usedNow;
    if (lateMs >= starvedMs) {
      const line: StarvedLine = { from: expected, to: at, lateMs };
      try {
        appendFileSync(file, `${JSON.stringify(line)}\n`);
      } catch {
        // The run directory is gone (the drill is over): nothing left to tell.
      }
    }
    expected = at + tickMs;
  }, tickMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
