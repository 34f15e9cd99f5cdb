import { drillLanes, MAX_AUTO_EXPLORE_LANES } from '../../drill/drill-lanes.js';
import { calibrate } from '../../harness/calibrate.js';
import { QUEUE_IMPLS, type QueueImpl } from '../../queues/registry.js';
import type { SizePlan } from '../sizes.js';
import { type FirstCatchRow, timeFirstCatch } from './first-catch.js';
import { type ExploreRateRow, measureRate } from './rate.js';

/** The seed of every explore the family runs (the self-test's default): fixed, so a run's schedules are the last run's. */
export const EXPLORE_BENCH_SEED = 1;

/** The explore family's results. */
export interface ExploreResults {
  rate: ExploreRateRow;
  catches: FirstCatchRow[];
  /** Variants named by the plan that explore cannot run here (none known, or not on SQLite). */
  skipped: string[];
}

/** The broken variants on SQLite (no server to need: explore runs them anywhere), in the registry's order. */
export function sqliteVariants(only: readonly string[]): { impls: QueueImpl[]; skipped: string[] } {
  const all = QUEUE_IMPLS.filter((q) => q.soundness === 'broken' && (q.needs ?? []).length === 0);
  if (only.length === 0) return { impls: all, skipped: [] };
  return {
    impls: all.filter((q) => only.includes(q.name)),
    skipped: only.filter((name) => !all.some((q) => q.name === name)).map((name) => `explore ${name}: not a broken variant on SQLite`),
  };
}

/**
 * Explore's speed, as a person waits for it: schedules a second on the SQLite
 * reference, then each broken SQLite variant timed to its first catch. Both
 * in this process, as `queue-drill explore` and the self-test call explore,
 * with explore's default lanes (auto: as many as a quiet machine takes, measured
 * once here, src/drill/drill-lanes.ts), one explore at a time.
 */
export async function runExploreFamily(
  plan: SizePlan['explore'],
  context: { dir: string; signal: AbortSignal; onLine?: (line: string) => void },
): Promise<ExploreResults> {
  const lanes = drillLanes('auto', await calibrate(), { most: MAX_AUTO_EXPLORE_LANES }).count;
  const seed = EXPLORE_BENCH_SEED;
  const rate = await measureRate({ schedules: plan.rateSchedules, seed, lanes }, context);
  const perSecond = `${rate.schedulesPerSecond.toFixed(2)}/s`;
  context.onLine?.(
    `explore reference: ${rate.schedules} schedules in ${(rate.wallMs / 1000).toFixed(1)} s, ${perSecond} (seed ${seed}, ${lanes} lanes)`,
  );
  const { impls, skipped } = sqliteVariants(plan.variants);
  const catches: FirstCatchRow[] = [];
  for (const impl of impls) {
    if (context.signal.aborted) break;
    const row = await timeFirstCatch(impl, { seed, lanes, cap: plan.cap }, context);
    catches.push(row);
    const seconds = `${(row.elapsedMs / 1000).toFixed(1)} s`;
    context.onLine?.(
      row.caught
        ? `explore ${row.variant}: caught by ${row.invariant} after ${row.schedules} schedule(s), ${seconds}`
        : `explore ${row.variant}: not caught in ${row.schedules} schedule(s), ${seconds}`,
    );
  }
  return { rate, catches, skipped };
}
