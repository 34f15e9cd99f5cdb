import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXPLORE_PLANS } from '../../src/explore/plans.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport, ScenarioReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * Fault rules with a probability decide each hit from what the hit is (its
 * point, job, attempt and step), never from the order hits arrive in. Here
 * three workers race for eight jobs, in one scenario replayed twenty times
 * with one seed, two replays at a time: which worker claims which job is the
 * OS's choice and differs from run to run, yet every run reaches the same hits
 * and fires the same faults at them.
 */

const RUNS = 20;

function racingFile(): string {
  return stringify({
    version: 1,
    defaults: { lease_ms: 400, skew_margin_ms: 50, call_timeout_ms: 300, no_progress_ms: 5000, timeout_ms: 30000 },
    plans: { 'write-file': EXPLORE_PLANS['write-file'] },
    scenarios: [
      {
        name: 'race',
        description: 'Three workers race for eight jobs; a claim and a call each fail with a chance drawn from the seed.',
        workers: 3,
        max_attempts: 10,
        retry: { base_ms: 20, cap_ms: 40, jitter_ms: 10 },
        jobs: [{ plan: 'write-file', count: 8, expect: 'done' }],
        faults: [
          { at: 'after_claim', action: 'error', kind: 'transient', probability: 0.3 },
          { at: 'before_call', action: 'error', kind: 'transient', probability: 0.3 },
        ],
      },
    ],
  });
}

/** Every hit of a run as `point job attempt step: fired|continued`, sorted: the decisions, whoever made the hit. */
function decisions(scenario: ScenarioReport): string[] {
  return scenario.timeline
    .filter((e) => e.kind === 'fault-hit' || e.kind === 'fault-fired')
    .filter((e) => e.point === 'after_claim' || e.point === 'before_call')
    .map((e) => `${e.point} job ${e.job} attempt ${e.attempt}${e.step ? ` step ${e.step}` : ''}: ${e.kind === 'fault-fired' ? 'fired' : 'continued'}`)
    .sort();
}

/** Which worker made each claim, in the order of the jobs: what the OS decided. */
function claimers(scenario: ScenarioReport): string {
  return scenario.timeline
    .filter((e) => (e.kind === 'fault-hit' || e.kind === 'fault-fired') && e.point === 'after_claim')
    .map((e) => `${e.job}.${e.attempt}:${e.worker}`)
    .sort()
    .join(' ');
}

describe('a racing schedule replayed 20 times', () => {
  it('decides every hit the same in every run, whichever worker reached it', { timeout: 180_000 }, async () => {
    const run = tempRunDir('replay-decisions');
    try {
      const file = join(run.dir, 'race.yaml');
      writeFileSync(file, racingFile());
      // Twenty replays of one run, two at a time (as a CI machine would run them beside other work).
      const replay = async (n: number): Promise<ScenarioReport> => {
        const out = join(run.dir, `replay-${n}`);
        const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--seed', '11', '--out', out], { reject: false, env: { CI: 'true' } });
        const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as DrillReport;
        expect(report.scenarios[0]!.verdict, result.stderr).toBe('pass');
        return report.scenarios[0]!;
      };
      const scenarios: ScenarioReport[] = [];
      for (let n = 1; n <= RUNS; n += 2) scenarios.push(...(await Promise.all([replay(n), replay(n + 1)])));
      const [first, ...rest] = scenarios.map(decisions);
      expect(first!.filter((d) => d.endsWith('fired')).length, 'some hits fired').toBeGreaterThan(0);
      expect(first!.filter((d) => d.endsWith('continued')).length, 'some hits went on').toBeGreaterThan(0);
      // The same hit, decided the same in every run that reached it. Which hits a run reaches is the OS's: on a loaded
      // machine a live worker can lose its lease and its job be claimed once more (a hit more, decided like any other).
      const decided = (list: string[]) => new Map(list.map((d) => [d.slice(0, d.lastIndexOf(': ')), d.slice(d.lastIndexOf(': ') + 2)]));
      const firstDecided = decided(first!);
      for (const [n, other] of rest.entries()) {
        const otherDecided = decided(other);
        const shared = [...firstDecided.keys()].filter((hit) => otherDecided.has(hit));
        expect(shared.length, `run ${n + 2} reached most of run 1's hits`).toBeGreaterThan(firstDecided.size / 2);
        for (const hit of shared) expect(otherDecided.get(hit), `run ${n + 2} against run 1 at ${hit}`).toBe(firstDecided.get(hit));
        // Every fault that fired in run 1 fired in this run too, at the same hit.
        for (const [hit, decision] of firstDecided) if (decision === 'fired') expect(otherDecided.get(hit), `run ${n + 2} at ${hit}`).toBe('fired');
      }
      // The runs really raced: the workers did not take the jobs the same way every time.
      expect(new Set(scenarios.map(claimers)).size, 'different workers claimed the jobs in different runs').toBeGreaterThan(1);
    } finally {
      run.remove();
    }
  });
});
