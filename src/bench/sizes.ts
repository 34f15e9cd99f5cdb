import type { FailpointName } from '../faults/points.js';

/** How big a bench run is: tiny (a smoke test's), small (a quick look), full (the sizes). */
export const BENCH_SIZES = ['tiny', 'small', 'full'] as const;

/** One size. */
export type BenchSize = (typeof BENCH_SIZES)[number];

/** What each family measures at one size. */
export interface SizePlan {
  /** `cellBudgetMs`: how long one cell's workers may run before they are stopped and the rate taken over what they did. */
  throughput: { workers: readonly number[]; backlogs: readonly number[]; cellBudgetMs: number };
  /** The stages a worker is killed at, the queues, and how many kills per stage and queue. */
  recovery: { stages: readonly FailpointName[]; queues: readonly ('sqlite' | 'postgres')[]; killsPerStage: number };
  /** The shipped scenarios to time (empty: all of them). */
  drill: { only: readonly string[] };
  /**
   * `rateSchedules`: how many schedules explore runs on the reference to be rated; `variants`: the broken SQLite
   * variants timed to their first catch (empty: all of them), each given `cap` (schedules, ms: whichever runs out first).
   */
  explore: { rateSchedules: number; variants: readonly string[]; cap: { schedules: number; ms: number } };
}

/** Every stage of a worker's job a crash can be armed at with a plain job (the others need a world fault to be reached). */
export const WORKER_STAGES: readonly FailpointName[] = ['after_claim', 'before_call', 'after_write', 'after_verify', 'before_complete', 'heartbeat'];

/*
 * How long explore is given to catch each broken variant: schedules (the same
 * ones from run to run, so the cap is), and a time that only stops a run gone
 * slow. From seed 1 on 2026-12-05, 14 of the 22 SQLite variants were caught
 * within 17 schedules (most within 6) and 8 not within 30, each ~25 s of
 * schedules: 10 keeps the small size's explore near 2 minutes.
 */
const CAP_SMALL = { schedules: 10, ms: 30_000 };
const CAP_FULL = { schedules: 100, ms: 300_000 };

/** Each size's plan. */
export const SIZE_PLANS: Readonly<Record<BenchSize, SizePlan>> = {
  tiny: {
    throughput: { workers: [1], backlogs: [100], cellBudgetMs: 30_000 },
    recovery: { stages: ['after_claim'], queues: ['sqlite'], killsPerStage: 2 },
    drill: { only: ['crash-after-claim'] },
    // attempts-not-counted: caught by explore's first schedules from seed 1 (on 2026-12-05, lane 2's first), so the smoke run stays short.
    explore: { rateSchedules: 3, variants: ['attempts-not-counted'], cap: { schedules: 6, ms: 30_000 } },
  },
  small: {
    throughput: { workers: [1, 2, 4], backlogs: [1_000, 10_000], cellBudgetMs: 60_000 },
    recovery: { stages: WORKER_STAGES, queues: ['sqlite', 'postgres'], killsPerStage: 12 },
    drill: { only: [] },
    explore: { rateSchedules: 20, variants: [], cap: CAP_SMALL },
  },
  full: {
    throughput: { workers: [1, 2, 4, 8], backlogs: [1_000, 10_000, 100_000], cellBudgetMs: 180_000 },
    recovery: { stages: WORKER_STAGES, queues: ['sqlite', 'postgres'], killsPerStage: 51 },
    drill: { only: [] },
    explore: { rateSchedules: 100, variants: [], cap: CAP_FULL },
  },
};
