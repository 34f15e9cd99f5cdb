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
}

/** Every stage of a worker's job a crash can be armed at with a plain job (the others need a world fault to be reached). */
export const WORKER_STAGES: readonly FailpointName[] = ['after_claim', 'before_call', 'after_write', 'after_verify', 'before_complete', 'heartbeat'];

/** Each size's plan. */
export const SIZE_PLANS: Readonly<Record<BenchSize, SizePlan>> = {
  tiny: {
    throughput: { workers: [1], backlogs: [100], cellBudgetMs: 30_000 },
    recovery: { stages: ['after_claim'], queues: ['sqlite'], killsPerStage: 2 },
    drill: { only: ['crash-after-claim'] },
  },
  small: {
    throughput: { workers: [1, 2, 4], backlogs: [1_000, 10_000], cellBudgetMs: 60_000 },
    recovery: { stages: WORKER_STAGES, queues: ['sqlite', 'postgres'], killsPerStage: 12 },
    drill: { only: [] },
  },
  full: {
    throughput: { workers: [1, 2, 4, 8], backlogs: [1_000, 10_000, 100_000], cellBudgetMs: 180_000 },
    recovery: { stages: WORKER_STAGES, queues: ['sqlite', 'postgres'], killsPerStage: 51 },
    drill: { only: [] },
  },
};
