import { join } from 'node:path';
import { type ExploreResult, explore } from '../../explore/explore.js';
import { queueImpl } from '../../queues/registry.js';
import { type CpuSample, cpuBetween, cpuSample } from './cpu.js';

/** Issue 29's target for explore on the reference: schedules a second. */
export const EXPLORE_TARGET_PER_SECOND = 3;

/** Explore on the SQLite reference for a fixed number of schedules: how many it judged a second, and what CPU that took. */
export interface ExploreRateRow {
  queue: string;
  seed: number;
  lanes: number;
  /** The schedules asked for. */
  asked: number;
  /** Schedules judged to their end (explore's `runs`): what the rate counts. */
  schedules: number;
  /** Schedules the time budget cut off (judged not at all, not counted). */
  cutOff: number;
  /** Schedules with a fault that never fired. */
  vacuous: number;
  /** Schedules the machine starved past judging (inconclusive): counted in the rate, though they could catch nothing. */
  inconclusive?: number;
  /** Counterexamples and flaky findings: on the sound reference, each is a finding to look at, not a figure. */
  violations: number;
  wallMs: number;
  schedulesPerSecond: number;
  harnessCpuMs: number;
  /** The CPU of the drills' processes (see cpu.ts); null where the OS does not say. */
  childrenCpuMs: number | null;
}

/** The rate row of one explore run. */
export function rateRow(
  result: Pick<ExploreResult, 'runs' | 'cutOff' | 'vacuous' | 'inconclusive' | 'counterexamples' | 'flaky' | 'durationMs'>,
  run: { queue: string; seed: number; lanes: number; asked: number },
  cpu: CpuSample,
): ExploreRateRow {
  return {
    ...run,
    schedules: result.runs,
    cutOff: result.cutOff,
    vacuous: result.vacuous,
    inconclusive: result.inconclusive,
    violations: result.counterexamples.length + result.flaky.length,
    wallMs: result.durationMs,
    schedulesPerSecond: result.durationMs > 0 ? result.runs / (result.durationMs / 1000) : 0,
    harnessCpuMs: cpu.harnessMs,
    childrenCpuMs: cpu.childrenMs,
  };
}

/**
 * A budget no run of the size's schedules should meet (a schedule takes a
 * second or two): it stops a hung explore, and a run it does cut off shows in
 * the row (cutOff), never in the rate.
 */
const budgetFor = (schedules: number) => Math.max(60_000, schedules * 10_000);

/** Runs explore on the SQLite reference, in this process as `queue-drill explore` does, and rates it. */
export async function measureRate(
  plan: { schedules: number; seed: number; lanes: number },
  context: { dir: string; signal: AbortSignal },
): Promise<ExploreRateRow> {
  const queue = 'reference';
  const before = cpuSample();
  const result = await explore({
    queue,
    adapter: queueImpl(queue),
    runs: plan.schedules,
    seed: plan.seed,
    timeBudgetMs: budgetFor(plan.schedules),
    parallel: plan.lanes,
    out: join(context.dir, 'rate'),
    signal: context.signal,
  });
  return rateRow(result, { queue, seed: plan.seed, lanes: plan.lanes, asked: plan.schedules }, cpuBetween(before, cpuSample()));
}
