import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exploreChart } from '../../src/bench/charts.js';
import { cpuBetween, cpuSample } from '../../src/bench/explore/cpu.js';
import { sqliteVariants } from '../../src/bench/explore/family.js';
import { catchRow, catchWatch, invariantsBroken } from '../../src/bench/explore/first-catch.js';
import { rateRow } from '../../src/bench/explore/rate.js';
import { renderResults } from '../../src/bench/print.js';
import { type BenchResults, BenchResultsSchema, ExploreResultsSchema } from '../../src/bench/results.js';
import type { ExploreRunEvent } from '../../src/explore/explore.js';
import type { ScenarioReport } from '../../src/report/schema.js';
import { drillReport } from '../report/fixture.js';

/*
 * The explore family's pure parts: a run summarised into its rows, the first
 * catch picked out of an explore's run events, the rows accepted by the
 * results' schema and printed. A real run of the family (3 schedules on the
 * reference, one variant to its catch) is the bench's smoke test's
 * (test/selftest/bench-smoke.test.ts), among the serial tests: its drills race
 * for leases, and the machine's load is part of what they measure.
 */

const [PASSED, FAILED, , HARNESS_ERROR] = drillReport().scenarios as [ScenarioReport, ScenarioReport, ScenarioReport, ScenarioReport];

const event = (report: ScenarioReport, over: Partial<ExploreRunEvent> = {}): ExploreRunEvent => ({
  lane: 1,
  run: 1,
  report,
  shrinking: false,
  cutOff: null,
  ...over,
});

const RATE = rateRow(
  { runs: 20, cutOff: 0, vacuous: 1, inconclusive: 2, counterexamples: [], flaky: [], durationMs: 16_000 },
  { queue: 'reference', seed: 1, lanes: 2, asked: 20 },
  { harnessMs: 2_100, childrenMs: 19_500 },
);

describe('the explore family, summarised', () => {
  it('rates explore over the schedules it judged, and keeps the CPU and what it found', () => {
    expect(RATE).toEqual({
      queue: 'reference',
      seed: 1,
      lanes: 2,
      asked: 20,
      schedules: 20,
      cutOff: 0,
      vacuous: 1,
      inconclusive: 2,
      violations: 0,
      wallMs: 16_000,
      schedulesPerSecond: 1.25,
      harnessCpuMs: 2_100,
      childrenCpuMs: 19_500,
    });
    // Nothing judged in no time (an explore stopped before it began) is a rate of 0, never NaN.
    expect(
      rateRow({ runs: 0, cutOff: 0, vacuous: 0, inconclusive: 0, counterexamples: [], flaky: [], durationMs: 0 }, RATE, {
        harnessMs: 0,
        childrenMs: null,
      }),
    ).toMatchObject({ schedulesPerSecond: 0, childrenCpuMs: null });
  });

  it('reads the CPU used, the harness and (on Linux) its children, as a difference never below 0', () => {
    const before = cpuSample();
    const used = cpuBetween(before, cpuSample());
    expect(used.harnessMs).toBeGreaterThanOrEqual(0);
    if (process.platform === 'linux') expect(used.childrenMs).toBeGreaterThanOrEqual(0);
    expect(cpuBetween({ harnessMs: 5, childrenMs: null }, { harnessMs: 3, childrenMs: 10 })).toEqual({ harnessMs: 0, childrenMs: null });
  });

  it('takes the first judged run that broke an invariant as the catch, counting the runs judged before it', () => {
    let now = 1_000;
    let catches = 0;
    const watch = catchWatch(
      0,
      () => catches++,
      () => now,
    );
    watch.onRun(event(PASSED, { lane: 1, run: 1 }));
    // A run cut off was judged not at all; a harness failure says nothing of the queue: neither is a schedule caught.
    watch.onRun(event(FAILED, { lane: 2, run: 1, cutOff: 'the time budget' }));
    watch.onRun(event(HARNESS_ERROR, { lane: 2, run: 1 }));
    expect(watch.state.first).toBeNull();
    now = 4_500;
    watch.onRun(event(FAILED, { lane: 1, run: 2 }));
    // After the catch: a shrink and the other lane's last run change nothing.
    watch.onRun(event(FAILED, { lane: 1, run: 3, shrinking: true }));
    watch.onRun(event(FAILED, { lane: 2, run: 2 }));
    expect(catches).toBe(1);
    expect(watch.state).toEqual({
      judged: 3,
      first: { lane: 1, run: 2, schedules: 3, elapsedMs: 4_500, broken: ['no-duplicate-effect', 'review-routing'] },
    });
    expect(invariantsBroken(HARNESS_ERROR)).toEqual([]);
  });

  it("names the variant's own invariant as the catch, and says when only another one broke", () => {
    const run = { seed: 1, lanes: 2, cap: { schedules: 10, ms: 20_000 } };
    const seen = { lane: 2, run: 1, schedules: 2, elapsedMs: 1_900, broken: ['no-duplicate-effect', 'review-routing'] };
    const own = catchRow({ name: 'unknown-retried', breaks: ['review-routing'] }, run, seen, { runs: 4, durationMs: 3_000 });
    expect(own).toMatchObject({ caught: true, schedules: 2, elapsedMs: 1_900, lane: 2, run: 1, invariant: 'review-routing', declared: true });
    const luck = catchRow({ name: 'no-backoff', breaks: ['retry-backoff'] }, run, seen, { runs: 4, durationMs: 3_000 });
    expect(luck).toMatchObject({ caught: true, invariant: 'no-duplicate-effect', declared: false, expected: ['retry-backoff'] });
    const missed = catchRow({ name: 'no-jitter', breaks: ['retry-backoff'] }, run, null, { runs: 10, durationMs: 14_000 });
    expect(missed).toMatchObject({ caught: false, schedules: 10, elapsedMs: 14_000, invariant: null, lane: null, declared: null, capSchedules: 10 });
  });

  it('times every broken variant on SQLite, none on a server, and names a plan entry it cannot run', () => {
    const { impls, skipped } = sqliteVariants([]);
    expect(impls.length).toBeGreaterThan(10);
    expect(impls.every((q) => q.soundness === 'broken' && (q.needs ?? []).length === 0)).toBe(true);
    expect(impls.map((q) => q.name)).not.toContain('lease-trusted-after-partition');
    expect(skipped).toEqual([]);
    const named = sqliteVariants(['attempts-not-counted', 'reference']);
    expect(named.impls.map((q) => q.name)).toEqual(['attempts-not-counted']);
    expect(named.skipped).toEqual(['explore reference: not a broken variant on SQLite']);
  });
});

describe('the explore family, in the results', () => {
  const catches = [
    catchRow(
      { name: 'attempts-not-counted', breaks: ['attempts-bounded'] },
      { seed: 1, lanes: 2, cap: { schedules: 10, ms: 20_000 } },
      { lane: 2, run: 1, schedules: 1, elapsedMs: 1_900, broken: ['attempts-bounded'] },
      { runs: 3, durationMs: 5_000 },
    ),
    catchRow({ name: 'no-jitter', breaks: ['retry-backoff'] }, { seed: 1, lanes: 2, cap: { schedules: 10, ms: 20_000 } }, null, {
      runs: 10,
      durationMs: 14_000,
    }),
  ];
  const explore = { rate: RATE, catches, skipped: [] };
  const results: BenchResults = {
    version: 1,
    tool: 'queue-drill bench',
    toolVersion: '0.1.0',
    startedAt: '2026-12-05T09:00:00.000Z',
    finishedAt: '2026-12-05T09:02:00.000Z',
    durationMs: 120_000,
    size: 'small',
    families: ['explore'],
    machine: {
      cores: 2,
      cpuModel: 'AMD EPYC',
      memoryGb: 23.5,
      os: 'linux',
      node: 'v20.20.2',
      libraries: {},
      sqlite: '3.53.2',
      postgres: null,
      redis: null,
      loadAverage: [0.5, 0.5, 0.5],
    },
    skipped: [],
    throughput: null,
    recovery: null,
    drill: null,
    explore,
    charts: [],
  };

  it('is accepted by the schema, and a row that does not fit is refused', () => {
    expect(ExploreResultsSchema.parse(explore)).toEqual(explore);
    expect(BenchResultsSchema.parse(results).explore).toEqual(explore);
    expect(ExploreResultsSchema.safeParse({ ...explore, rate: { ...RATE, schedulesPerSecond: -1 } }).success).toBe(false);
    expect(ExploreResultsSchema.safeParse({ ...explore, catches: [{ ...catches[0], extra: 1 }] }).success).toBe(false);
  });

  it('still accepts the results kept from before the family was', () => {
    const dir = fileURLToPath(new URL('../../bench/results', import.meta.url));
    const kept = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(kept.length).toBeGreaterThan(0);
    for (const file of kept) expect(BenchResultsSchema.safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8'))).success, file).toBe(true);
  });

  it('prints the rate against the target, and each variant: caught by what, or not within its cap', () => {
    const printed = renderResults(results, []);
    expect(printed).toContain('Target: at least 3 schedules a second on the reference: not reached.');
    expect(printed).toMatch(/^reference +1 +2 +20 +16\.0 +1\.25 +2\.1 +19\.5$/m);
    expect(printed).toContain('(seed 1, 2 lanes; cap 10 schedules or 20.0 s): 1 of 2 caught');
    expect(printed).toMatch(/^attempts-not-counted +1 +1\.9 +attempts-bounded +2\/1$/m);
    expect(printed).toMatch(/^no-jitter +10 +14\.0 +not caught within cap +—$/m);
  });

  it('charts each variant as a bar, caught or not', () => {
    const svg = exploreChart(results)!;
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('attempts-not-counted, 1 schedule: to the first catch 2 s');
    expect(svg).toContain('no-jitter, 10 schedules: ran out of its cap, not caught 14 s');
    expect(exploreChart({ ...results, explore: null })).toBeNull();
  });
});
