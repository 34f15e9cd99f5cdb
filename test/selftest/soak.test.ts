import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { coverSchedules } from '../../src/explore/cover.js';
import { type SoakResult, soak, soakSchedules } from '../../src/explore/soak.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { queueImpl } from '../../src/queues/registry.js';
import type { DrillReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A small soak of each kind: a sound queue stays clean, and a broken one is
 * caught with a replay that fails again. The 1,000-run soak is a command a
 * person runs (`queue-drill soak --runs 1000`), not a test.
 */

describe('queue-drill soak', () => {
  it('draws the same schedules for one seed: the cover first, then fast-check', () => {
    const schedules = soakSchedules(3, 120);
    expect(schedules).toHaveLength(120);
    expect(schedules.slice(0, coverSchedules(3).length)).toEqual(coverSchedules(3));
    expect(soakSchedules(3, 120)).toEqual(schedules);
    expect(soakSchedules(4, 120)).not.toEqual(schedules);
  });

  it('finds nothing on the reference queue, and keeps no run directory of a clean run', { timeout: 120_000 }, async () => {
    const run = tempRunDir('soak-clean');
    try {
      const result = await soak({
        queue: 'reference',
        adapter: queueImpl('reference'),
        runs: 4,
        seed: 3,
        parallel: 1,
        out: run.dir,
        timeBudgetMs: 600_000,
        signal: new AbortController().signal,
      });
      expect(result).toMatchObject({ queue: 'reference', asked: 4, runs: 4, violations: [], interrupted: false });
      expect(existsSync(join(run.dir, 'run1'))).toBe(false);
      expect(JSON.parse(readFileSync(join(run.dir, 'soak.json'), 'utf8')) as SoakResult).toMatchObject({ runs: 4, violations: [] });
    } finally {
      run.remove();
    }
  });

  it('reports a broken queue with a replay file that fails again', { timeout: 180_000 }, async () => {
    const run = tempRunDir('soak-broken');
    try {
      // The cover's second run of seed 3 SIGKILLs a worker right after its claim (see coverSchedules):
      // history-gap never records the sweep that takes the job back.
      const result = await soak({
        queue: 'history-gap',
        adapter: queueImpl('history-gap'),
        runs: 3,
        seed: 3,
        parallel: 1,
        out: run.dir,
        timeBudgetMs: 600_000,
        signal: new AbortController().signal,
      });
      const caught = result.violations.find((v) => v.broken.includes('history-complete'));
      expect(caught, JSON.stringify(result.violations)).toBeDefined();
      expect(caught!.seed, 'run N of seed S replays with seed S + N - 1').toBe(3 + caught!.run - 1);
      expect(existsSync(caught!.runDir)).toBe(true);
      const kept = JSON.parse(readFileSync(join(caught!.runDir, 'scenario-report.json'), 'utf8')) as DrillReport['scenarios'][number];
      expect(kept.invariants.find((v) => v.id === 'history-complete')!.status).toBe('broken');
      const replay = await execa(
        process.execPath,
        [CLI_PATH, 'run', caught!.file, '--seed', String(caught!.seed), '--queue', 'history-gap', '--out', join(run.dir, 'replay')],
        {
          reject: false,
        },
      );
      expect(replay.exitCode).toBe(1);
      const report = JSON.parse(readFileSync(join(run.dir, 'replay', 'latest', 'report.json'), 'utf8')) as DrillReport;
      expect(report.scenarios[0]!.invariants.find((v) => v.id === 'history-complete')!.status).toBe('broken');
      // The replay is the run: the same jobs (a job's key follows its scenario's name, and every fault's draws the key).
      expect(report.scenarios[0]!.jobs.map((j) => j.key)).toEqual(kept.jobs.map((j) => j.key));
      expect(caught!.replay).toContain('--expect-broken');
    } finally {
      run.remove();
    }
  });
});
