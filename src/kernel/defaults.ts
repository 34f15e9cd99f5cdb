/*
 * The defaults a user meets on every road in: the command line, the library
 * and the flags the drill's children take all read them here, so changing one
 * is one edit.
 */

/** How long a claim or a heartbeat holds a job when nothing says otherwise (the reference queue's and a child's default). */
export const DEFAULT_LEASE_MS = 30_000;

/** How long after its end a lease counts as expired, to absorb clock skew between processes. */
export const DEFAULT_SKEW_MARGIN_MS = 1_000;

/** How many scenarios (or lanes, or runs) run at once when nothing says otherwise. */
export const DEFAULT_PARALLEL = 2;

/** The most scenarios a drill runs at once (`--parallel`, `parallel`): more only starves a small machine. */
export const MAX_PARALLEL = 16;

/** Why a count of scenarios (lanes, runs) at once is not one the drill takes, or null: a whole number from 1 to MAX_PARALLEL. */
export function parallelOutOfRange(value: number): string | null {
  return Number.isInteger(value) && value >= 1 && value <= MAX_PARALLEL ? null : `must be a whole number from 1 to ${MAX_PARALLEL}, got ${value}`;
}
