import { describe, expect, it } from 'vitest';
import { throughputChart } from '../../src/bench/charts.js';
import { renderResults } from '../../src/bench/print.js';
import { type BenchResults, BenchResultsSchema } from '../../src/bench/results.js';
import type { ThroughputTarget } from '../../src/bench/throughput/child-spec.js';
import { comparisons } from '../../src/bench/throughput/comparisons.js';
import type { ThroughputCell } from '../../src/bench/throughput/family.js';
import { TARGET_DEFINITIONS } from '../../src/bench/throughput/targets.js';

/*
 * The throughput family's comparisons, from cells as a run measures them:
 * each queue beside its raw rate, BullMQ and, for the PostgreSQL reference,
 * pg-boss on the same server; the results' schema taking them, and the table
 * and chart showing them. Real cells are the bench's smoke test's
 * (test/selftest/bench-smoke.test.ts).
 */

const cell = (target: ThroughputTarget, jobsPerSecond: number, over: Partial<ThroughputCell> = {}): ThroughputCell => {
  const definition = TARGET_DEFINITIONS.find((d) => d.target === target)!;
  return {
    target,
    store: definition.store,
    kind: definition.kind,
    workers: 1,
    backlog: 100,
    units: 100,
    elapsedMs: 1000,
    jobsPerSecond,
    transactionsPerSecond: definition.kind === 'raw' ? jobsPerSecond * 2 : null,
    perChild: [100],
    finished: true,
    error: null,
    ...over,
  };
};

const CELLS = [
  cell('sqlite-queue', 800),
  cell('sqlite-raw', 10_000),
  cell('postgres-queue', 300),
  cell('postgres-raw', 1_000),
  cell('pgboss', 200),
  cell('bullmq', 1_200),
];

const resultsOf = (cells: ThroughputCell[]): BenchResults => ({
  version: 1,
  tool: 'queue-drill bench',
  toolVersion: '0.1.0',
  startedAt: '2026-12-05T09:00:00.000Z',
  finishedAt: '2026-12-05T09:01:00.000Z',
  durationMs: 60_000,
  size: 'tiny',
  families: ['throughput'],
  machine: {
    cores: 2,
    cpuModel: 'AMD EPYC',
    memoryGb: 23.5,
    os: 'linux',
    node: 'v20.20.2',
    libraries: {},
    sqlite: '3.53.2',
    postgres: '15.20',
    redis: '7.0.15',
    loadAverage: [0.5, 0.5, 0.5],
  },
  skipped: [],
  throughput: { cells, comparisons: comparisons(cells), skipped: [] },
  recovery: null,
  drill: null,
  explore: null,
  charts: [],
});

describe('the throughput comparisons', () => {
  it("puts each queue beside its store's raw rate and BullMQ measured at the same workers and backlog", () => {
    const at = { workers: 4, backlog: 1000 };
    const failed = { ...at, error: 'w2 failed', finished: false };
    const rows = comparisons([
      cell('sqlite-queue', 800, at),
      cell('sqlite-raw', 2000, at),
      cell('bullmq', 400, at),
      cell('postgres-queue', 50, failed),
    ]);
    expect(rows).toEqual([
      {
        store: 'sqlite',
        workers: 4,
        backlog: 1000,
        queueJobsPerSecond: 800,
        rawJobsPerSecond: 2000,
        ofRaw: 0.4,
        bullmqJobsPerSecond: 400,
        ofBullmq: 2,
        pgbossJobsPerSecond: null,
        ofPgboss: null,
      },
    ]);
  });

  it('hold the PostgreSQL reference against pg-boss on the same server (queue ÷ pg-boss), and SQLite against nothing of it', () => {
    const [sqlite, postgres] = comparisons(CELLS);
    expect(postgres).toMatchObject({ store: 'postgres', queueJobsPerSecond: 300, pgbossJobsPerSecond: 200, ofPgboss: 1.5 });
    expect(sqlite).toMatchObject({ store: 'sqlite', pgbossJobsPerSecond: null, ofPgboss: null });
  });

  it('keep the raw and BullMQ comparisons as they were, on both stores', () => {
    const [sqlite, postgres] = comparisons(CELLS);
    expect(sqlite).toMatchObject({ rawJobsPerSecond: 10_000, ofRaw: 0.08, bullmqJobsPerSecond: 1_200 });
    expect(sqlite!.ofBullmq).toBeCloseTo(800 / 1_200);
    expect(postgres).toMatchObject({ rawJobsPerSecond: 1_000, ofRaw: 0.3, bullmqJobsPerSecond: 1_200, ofBullmq: 0.25 });
  });

  it('have no pg-boss ratio when pg-boss failed or was not measured (its server skipped)', () => {
    const failed = comparisons(CELLS.map((c) => (c.target === 'pgboss' ? { ...c, error: 'w1 failed (exit code 1): boom' } : c)));
    expect(failed.find((c) => c.store === 'postgres')).toMatchObject({ pgbossJobsPerSecond: null, ofPgboss: null, ofRaw: 0.3 });
    const skipped = comparisons(CELLS.filter((c) => c.target !== 'pgboss'));
    expect(skipped.find((c) => c.store === 'postgres')).toMatchObject({ pgbossJobsPerSecond: null, ofPgboss: null });
  });

  it('are accepted by the results schema, which still takes a comparison written before pg-boss was measured', () => {
    const results = resultsOf(CELLS);
    expect(BenchResultsSchema.parse(results).throughput?.comparisons).toEqual(results.throughput!.comparisons);
    const before = results.throughput!.comparisons.map(({ pgbossJobsPerSecond: _rate, ofPgboss: _ratio, ...rest }) => rest);
    expect(BenchResultsSchema.safeParse({ ...results, throughput: { ...results.throughput, comparisons: before } }).success).toBe(true);
    const negative = results.throughput!.comparisons.map((c) => ({ ...c, ofPgboss: -1 }));
    expect(BenchResultsSchema.safeParse({ ...results, throughput: { ...results.throughput, comparisons: negative } }).success).toBe(false);
  });

  it('are printed with pg-boss beside the PostgreSQL reference and its target, and pg-boss is a series of the chart', () => {
    const printed = renderResults(resultsOf(CELLS), []);
    expect(printed).toMatch(/ pg-boss jobs\/s +of pg-boss$/m);
    expect(printed).toMatch(/^postgres +100 +1 +300 +1000 +30% +1200 +0\.25× +200 +1\.50×$/m);
    expect(printed).toMatch(/^sqlite +100 +1 +800 +10000 +8% +1200 +0\.67× +— +—$/m);
    expect(printed).toContain('Target (PostgreSQL reference): at least 50% of raw, and faster than pg-boss');
    expect(throughputChart(resultsOf(CELLS))).toContain('>pg-boss<');
  });
});

describe('the pg-boss target', () => {
  it('runs on PostgreSQL (so a server that does not answer skips it, as the reference), a queue of two transactions a job', () => {
    const targets = TARGET_DEFINITIONS.map((d) => d.target);
    expect(TARGET_DEFINITIONS.find((d) => d.target === 'pgboss')).toMatchObject({ store: 'postgres', kind: 'queue', transactionsPerJob: 2 });
    expect(targets.indexOf('pgboss')).toBe(targets.indexOf('postgres-raw') + 1);
  });
});
