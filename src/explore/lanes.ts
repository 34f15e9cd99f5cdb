import { type ExploreScope, NO_NETWORK } from './action-scope.js';
import { coverSchedules } from './cover.js';
import type { Schedule } from './schedule.js';

/*
 * How explore splits its runs among lanes (independent fast-check runs side
 * by side, each with its own seed), and the covering schedules with them:
 * lane i of n takes covering schedules i, i + n, i + 2n..., as fast-check
 * examples, so the first runs of all lanes together walk the whole cover.
 * What fast-check runs in a lane is then exactly this: the examples, then
 * its own draws from the lane's seed. The coverage test reads it from here
 * without running anything.
 */

/** One lane's fast-check parameters. */
export interface Lane {
  /** 0-based. */
  index: number;
  seed: number;
  numRuns: number;
  /** Each a one-value tuple, as fast-check takes a property's examples. */
  examples: Array<[Schedule]>;
}

/** The lanes of an explore of `runs` schedules from `seed`, `parallel` side by side (at most one a run), on a queue that gets `scope`'s actions. */
export function exploreLanes(seed: number, runs: number, parallel: number, scope: ExploreScope = NO_NETWORK): Lane[] {
  const count = Math.max(1, Math.min(parallel, runs));
  const cover = coverSchedules(seed, scope);
  return Array.from({ length: count }, (_, index) => ({
    index,
    seed: seed + index,
    numRuns: Math.floor(runs / count) + (index < runs % count ? 1 : 0),
    examples: cover.filter((_, k) => k % count === index).map((schedule): [Schedule] => [schedule]),
  }));
}
