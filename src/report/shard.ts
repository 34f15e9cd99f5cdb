/*
 * A drill split across machines: `run --shard i/n` runs share i of n of the
 * drill's scenario runs, and `merge` joins the shares' reports into one. The
 * split is round robin over the drill's order (every scenario of the file, or
 * of --only, in the file's order, then again for each --repeat): the run at
 * position p (from 0) belongs to share p mod n + 1. It depends on nothing but
 * that order, so every machine given the same command computes the same
 * split, and the shares differ in size by one run at most.
 */

/** Share `index` (from 1) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** A scenario run's name in a drill's order, "name#repeat": what shard reports list and merge matches on. */
export function runKey(run: { name: string; repeat: number }): string {
  return `${run.name}#${run.repeat}`;
}

/** The share (from 1) of `count` that the run at `position` (from 0) in the drill's order belongs to. */
export function shareOf(position: number, count: number): number {
  return (position % count) + 1;
}

/** The runs of `order` that belong to `shard`, in order. */
export function runsOfShare<T>(order: readonly T[], shard: Shard): T[] {
  return order.filter((_, position) => shareOf(position, shard.count) === shard.index);
}
