import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BenchResultsSchema } from '../../src/bench/results.js';
import { PG_AVAILABLE } from '../helpers/postgres.js';
import { REDIS_AVAILABLE } from '../helpers/redis.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * `npm run bench` at its smoke size, as a person runs it (the compiled entry,
 * real worker processes, real drills): it prints a table per family, writes
 * a results file that validates against its schema, and an SVG chart per
 * family beside it. Here, with the other tests' servers: a family part whose
 * server does not answer is a skipped line, never a failure. In the serial
 * project: its throughput and recovery figures are the machine's to measure.
 */

const MAIN = fileURLToPath(new URL('../../dist/bench/main.js', import.meta.url));

describe('npm run bench -- --size tiny', () => {
  let out: ReturnType<typeof tempRunDir>;
  beforeEach(() => {
    out = tempRunDir('bench');
  });
  afterEach(() => out.remove());

  it('prints the tables and writes the results (valid against their schema) with a chart per family', { timeout: 120_000 }, async () => {
    const run = await execa(process.execPath, [MAIN, '--size', 'tiny', '--out', out.dir], { reject: false, all: true });
    expect(run.exitCode, run.all).toBe(0);
    for (const heading of [
      'Throughput: no-op jobs per second',
      'Recovery: ms from a SIGKILL',
      'The shipped drill:',
      'Explore: schedules judged a second',
    ])
      expect(run.stdout).toContain(heading);
    expect(run.stdout).toMatch(/^sqlite +100 +1 +\d+ +\d+ +\d+% /m);

    const files = readdirSync(out.dir).sort();
    const json = files.filter((f) => f.endsWith('.json'));
    expect(json).toHaveLength(1);
    const results = BenchResultsSchema.parse(JSON.parse(readFileSync(join(out.dir, json[0]!), 'utf8')));
    const stem = json[0]!.replace(/\.json$/, '');
    expect(results.charts).toEqual([`${stem}.throughput.svg`, `${stem}.recovery.svg`, `${stem}.drill.svg`, `${stem}.explore.svg`]);
    expect(files).toEqual([...results.charts, json[0]].sort());
    for (const chart of results.charts) {
      const svg = readFileSync(join(out.dir, chart), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    }
    expect(run.stdout).toContain(`wrote ${join(out.dir, json[0]!)}`);

    // What each family measured, at the smoke size: every job done, every kill recovered, the scenario timed.
    const cells = results.throughput!.cells;
    expect(cells.find((c) => c.target === 'sqlite-queue')).toMatchObject({ workers: 1, backlog: 100, units: 100, error: null });
    expect(cells.find((c) => c.target === 'sqlite-raw')).toMatchObject({ units: 200, error: null });
    expect(cells.some((c) => c.target === 'postgres-queue')).toBe(PG_AVAILABLE);
    // pg-boss wherever the PostgreSQL reference runs, every job of its backlog done, and held against it.
    expect(cells.some((c) => c.target === 'pgboss')).toBe(PG_AVAILABLE);
    if (PG_AVAILABLE) {
      expect(cells.find((c) => c.target === 'pgboss')).toMatchObject({ workers: 1, backlog: 100, units: 100, error: null });
      expect(results.throughput!.comparisons.find((c) => c.store === 'postgres')?.ofPgboss).toBeGreaterThan(0);
    }
    expect(cells.some((c) => c.target === 'bullmq')).toBe(REDIS_AVAILABLE);
    expect(results.skipped.length > 0).toBe(!PG_AVAILABLE || !REDIS_AVAILABLE);
    expect(results.recovery!.rows).toEqual([
      expect.objectContaining({ queue: 'sqlite', stage: 'after_claim', kills: 2, unrecovered: 0, failedRuns: [] }),
    ]);
    const drill = results.drill!;
    expect(drill.scenarios.map((s) => [s.name, s.verdict])).toEqual([['crash-after-claim', 'pass']]);
    const [timed] = drill.scenarios;
    const parts = timed!.provisionMs + timed!.startupMs + timed!.faultWaitMs + timed!.restartMs + timed!.workMs + timed!.restCheckMs;
    expect(parts + timed!.stopMs + timed!.evidenceMs + timed!.teardownMs + timed!.judgeMs).toBeCloseTo(timed!.wallMs, 0);
    expect(timed!.faultWaitMs).toBeGreaterThan(0);

    // Explore: its 3 schedules on the reference judged and rated, and the variant caught (from seed 1, in its first few) by its own invariant.
    const explore = results.explore!;
    expect(explore.rate).toMatchObject({ queue: 'reference', seed: 1, asked: 3, schedules: 3, cutOff: 0 });
    expect(explore.rate.schedulesPerSecond).toBeGreaterThan(0);
    expect(explore.rate.harnessCpuMs + (explore.rate.childrenCpuMs ?? 0)).toBeGreaterThan(0);
    expect(explore.catches).toEqual([
      expect.objectContaining({ variant: 'attempts-not-counted', seed: 1, caught: true, invariant: 'attempts-bounded', declared: true }),
    ]);
    const [caught] = explore.catches;
    expect(caught!.schedules).toBeGreaterThan(0);
    expect(caught!.schedules).toBeLessThanOrEqual(caught!.capSchedules);
    expect(caught!.elapsedMs).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/^attempts-not-counted +\d+ +[\d.]+ +attempts-bounded +\d\/\d+$/m);
  });

  it('refuses a flag it does not know, naming it (exit 2)', async () => {
    const run = await execa(process.execPath, [MAIN, '--size', 'huge', '--out', out.dir], { reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--size takes tiny, small, full; got huge');
    expect(readdirSync(out.dir)).toEqual([]);
  });
});
