import { join } from 'node:path';
import { broken, type ExploreRunEvent, explore } from '../../explore/explore.js';
import type { QueueImpl } from '../../queues/registry.js';

/** How long explore is given to catch a variant: whichever of the schedules and the time runs out first. */
export interface CatchCap {
  schedules: number;
  ms: number;
}

/** One broken variant: how long explore took to catch it, from a fixed seed, and by what. */
export interface FirstCatchRow {
  variant: string;
  /** The invariants the variant declares its mistake breaks (its `breaks`). */
  expected: string[];
  seed: number;
  lanes: number;
  capSchedules: number;
  capMs: number;
  caught: boolean;
  /** Schedules judged up to and including the catching one (every lane's); when not caught, all judged within the cap. */
  schedules: number;
  /** From explore's start to the catching run's verdict; when not caught, the whole explore. */
  elapsedMs: number;
  /** The lane that caught it and which of its runs (the schedule a replay of that lane's seed reaches), or null. */
  lane: number | null;
  run: number | null;
  /** The invariant that caught it: the first of its declared ones the run broke, else the first it broke; null when not caught. */
  invariant: string | null;
  /** Every invariant the catching run broke. */
  broken: string[];
  /** Whether `invariant` is one the variant declares (a catch by another is luck, as the self-test counts it); null when not caught. */
  declared: boolean | null;
}

/** The first run seen to break an invariant: where and when. */
export interface SeenCatch {
  lane: number;
  run: number;
  /** Judged runs (not shrinking, not cut off) by then, this one included. */
  schedules: number;
  elapsedMs: number;
  broken: string[];
}

/**
 * The invariants a run broke: explore's `broken` without the harness's own
 * failures, which say nothing about the queue (a run the machine starved, an
 * inconclusive one, breaks nothing either).
 */
export function invariantsBroken(report: ExploreRunEvent['report']): string[] {
  const ids = new Set<string>(report.invariants.map((v) => v.id));
  return broken(report).filter((id) => ids.has(id));
}

/**
 * Watches an explore's runs as they end: counts the runs judged (a shrink or
 * a run cut off is not a schedule tried) and keeps the first that broke an
 * invariant, then calls `onCatch` (once).
 */
export function catchWatch(started: number, onCatch: () => void, now: () => number = Date.now) {
  const state: { judged: number; first: SeenCatch | null } = { judged: 0, first: null };
  const onRun = (event: ExploreRunEvent) => {
    if (event.shrinking || event.cutOff !== null || state.first !== null) return;
    state.judged++;
    const found = invariantsBroken(event.report);
    if (found.length === 0) return;
    state.first = { lane: event.lane, run: event.run, schedules: state.judged, elapsedMs: now() - started, broken: found };
    onCatch();
  };
  return { onRun, state };
}

/** The row of one variant's explore: its catch, or how far it got without one. */
export function catchRow(
  variant: { name: string; breaks: readonly string[] },
  run: { seed: number; lanes: number; cap: CatchCap },
  seen: SeenCatch | null,
  uncaught: { runs: number; durationMs: number },
): FirstCatchRow {
  const base = { variant: variant.name, expected: [...variant.breaks], seed: run.seed, lanes: run.lanes };
  const caps = { capSchedules: run.cap.schedules, capMs: run.cap.ms };
  if (seen === null)
    return {
      ...base,
      ...caps,
      caught: false,
      schedules: uncaught.runs,
      elapsedMs: uncaught.durationMs,
      lane: null,
      run: null,
      invariant: null,
      broken: [],
      declared: null,
    };
  const own = seen.broken.find((id) => variant.breaks.includes(id));
  return {
    ...base,
    ...caps,
    caught: true,
    schedules: seen.schedules,
    elapsedMs: seen.elapsedMs,
    lane: seen.lane,
    run: seen.run,
    invariant: own ?? seen.broken[0]!,
    broken: seen.broken,
    declared: own !== undefined,
  };
}

/** Why explore stopped at a catch: what a run it cut off then says cut it. */
const CAUGHT = 'the first catch';

/**
 * Runs explore on a broken variant, in this process as the self-test does,
 * from a fixed seed, until the first run that breaks an invariant (then every
 * lane is stopped: no shrinking, no rerun, which time the finding, not the
 * catch) or the cap.
 */
export async function timeFirstCatch(
  impl: QueueImpl,
  plan: { seed: number; lanes: number; cap: CatchCap },
  context: { dir: string; signal: AbortSignal },
): Promise<FirstCatchRow> {
  const stop = new AbortController();
  const started = Date.now();
  const watch = catchWatch(started, () => stop.abort(CAUGHT));
  const result = await explore({
    queue: impl.name,
    adapter: impl,
    runs: plan.cap.schedules,
    seed: plan.seed,
    timeBudgetMs: plan.cap.ms,
    parallel: plan.lanes,
    out: join(context.dir, impl.name),
    signal: AbortSignal.any([context.signal, stop.signal]),
    onRun: watch.onRun,
  });
  return catchRow({ name: impl.name, breaks: impl.breaks ?? [] }, plan, watch.state.first, result);
}
