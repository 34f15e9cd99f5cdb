import { availableParallelism } from 'node:os';
import type { Calibration } from '../harness/calibrate.js';
import { DEFAULT_PARALLEL, MAX_PARALLEL, parallelOutOfRange } from '../kernel/defaults.js';
import { UsageError } from '../kernel/errors.js';

/*
 * How many scenarios a drill runs at once. A scenario is a handful of mostly
 * idle processes waiting out leases, so a quiet machine runs more of them side
 * by side than it has cores: measured on a quiet 2-core machine, the shipped
 * drill took 22 s at 2 at once, 16 s at 3 and 14 s at 4, with the same
 * verdicts. On a busy one, every extra lane starves the others (beside six
 * busy processes, 4 at once left a scenario inconclusive where 2 did not). So
 * `--parallel auto` (the default) runs more only where the drill's own
 * measure of the machine (--time-scale auto's, before the first scenario)
 * found it clearly quiet, and goes back to DEFAULT_PARALLEL for the rest of
 * the drill as soon as a scenario comes out inconclusive, running that one
 * again: the starvation was the drill's own doing, not the queue's.
 */

/** `--parallel`: a count, or auto. */
export type ParallelSetting = number | 'auto';

/** `--parallel TEXT`: auto, or a whole number from 1 to MAX_PARALLEL (bad input otherwise). */
export function parseParallel(text: string): ParallelSetting {
  const given = text.trim();
  if (given === 'auto') return 'auto';
  const count = Number(given);
  if (given === '' || parallelOutOfRange(count) !== null)
    throw new UsageError(`--parallel must be auto or a whole number from 1 to ${MAX_PARALLEL}, got ${text}`);
  return count;
}

/** The most auto runs at once, half of it a core: past it a 2-core machine is CPU-bound and a drill takes no less time. */
export const MAX_AUTO_LANES = 4;

/**
 * Explore's most: its schedules are short drills whose findings a starved run cannot fake (an inconclusive run is
 * no counterexample, and a catch is run again before it is believed), so it may crowd a quiet machine more for
 * its rate. Measured on a quiet 2-core machine, 60 schedules from seed 1: 2.58 a second at 4 lanes, 3.08 at 6,
 * 3.0 at 8 (CPU-bound, and a run inconclusive); the shipped drill at 6 at once passed, but with processes not run
 * for up to 510 ms against its 400 ms leases.
 */
export const MAX_AUTO_EXPLORE_LANES = 6;

/** A start this long or shorter (the calibration's slower of two processes) is a machine quiet enough for more lanes. */
export const QUIET_FOR_LANES_START_MS = 200;

/** A timer this late or less, likewise. */
export const QUIET_FOR_LANES_LATENESS_MS = 5;

/** How many scenarios a drill runs at once, and why: what the report keeps. */
export interface DrillLanes {
  /** At the start. */
  count: number;
  chosen: 'given' | 'auto';
  why: string;
  /** Auto: the scenario whose inconclusive run sent the drill back to DEFAULT_PARALLEL at once (run again), or null. */
  narrowedAfter: string | null;
}

/**
 * The lanes of a drill given `setting`, on a machine the calibration measured (null: not measured, a time scale was
 * given), auto taking at most `most` (half of it a core of `cores`).
 */
export function drillLanes(
  setting: ParallelSetting,
  calibration: Calibration | null,
  { cores = availableParallelism(), most = MAX_AUTO_LANES }: { cores?: number; most?: number } = {},
): DrillLanes {
  if (setting !== 'auto') return { count: setting, chosen: 'given', why: `--parallel ${setting}`, narrowedAfter: null };
  const base = { count: DEFAULT_PARALLEL, chosen: 'auto' as const, narrowedAfter: null };
  if (calibration === null) return { ...base, why: 'the machine was not measured (a time scale was given)' };
  const { startupMs, timerLatenessMs } = calibration;
  const measured = `a process started in ${startupMs} ms, a timer fired ${timerLatenessMs} ms late`;
  if (startupMs > QUIET_FOR_LANES_START_MS || timerLatenessMs > QUIET_FOR_LANES_LATENESS_MS) return { ...base, why: `a busy machine (${measured})` };
  const count = Math.max(DEFAULT_PARALLEL, Math.min(most, (most / 2) * cores));
  return { ...base, count, why: `a quiet machine (${measured}; ${cores} core${cores === 1 ? '' : 's'})` };
}

/** The line a drill prints after its time scale's: how many scenarios (explore: lanes) at once, and why. */
export function lanesLine(lanes: DrillLanes, what = 'scenario'): string {
  return `${lanes.count} ${what}${lanes.count === 1 ? '' : 's'} at once (${lanes.chosen === 'auto' ? `auto: ${lanes.why}` : 'given'})`;
}

/**
 * The lanes of a running drill: which may take another scenario, how many
 * scenario runs are under way, and auto's step back to DEFAULT_PARALLEL.
 */
export class LaneCount {
  private allowed: number;
  private running = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly lanes: DrillLanes) {
    this.allowed = lanes.count;
  }

  /** Whether lane `index` (from 0) takes another scenario: not once auto narrowed the drill below it. */
  takesMore(index: number): boolean {
    return index < this.allowed;
  }

  /** Runs one scenario run, counted as under way. */
  async during<T>(run: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await run();
    } finally {
      this.running--;
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Whether more than DEFAULT_PARALLEL may run now (auto on a quiet machine, not narrowed yet): a run starting now is crowded. */
  crowded(): boolean {
    return this.lanes.chosen === 'auto' && this.allowed > DEFAULT_PARALLEL;
  }

  /**
   * After a crowded run of `scenario` came out inconclusive: the drill goes back to DEFAULT_PARALLEL for good
   * (the first such scenario is named in the report), and this resolves once no more than that run, this
   * scenario's next run among them: the caller runs it again.
   */
  async narrowAfter(scenario: string): Promise<void> {
    this.allowed = Math.min(this.allowed, DEFAULT_PARALLEL);
    this.lanes.narrowedAfter ??= scenario;
    while (this.running > DEFAULT_PARALLEL - 1) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}
