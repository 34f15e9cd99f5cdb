import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { checkReport, REPORT_VERSION } from '../../src/report/schema.js';
import { parseScenarioText } from '../../src/scenarios/load.js';
import { tempRunDir } from '../helpers/run-dir.js';

const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true' } });

describe('queue-drill explore', () => {
  it('finds a broken variant, shrinks it to a small scenario file, and run replays it with the same verdict', { timeout: 300_000 }, async () => {
    const run = tempRunDir('explore');
    try {
      const explored = await cli(['explore', '--queue', 'attempts-not-counted', '--runs', '4', '--seed', '11', '--parallel', '1', '--out', run.dir]);
      expect(explored.exitCode, explored.stderr).toBe(1);
      expect(explored.stdout).toMatch(/counterexample \(lane 1, seed 11, shrunk \d+ times to \d fault\(s\)\): breaks attempts-bounded/);
      const file = join(run.dir, 'counterexample-lane1.yaml');
      const scenario = parseScenarioText(readFileSync(file, 'utf8'), file).scenarios[0]!;
      expect(scenario.faults.length).toBeLessThanOrEqual(3);
      expect(scenario.jobs).toHaveLength(1);

      // Pasted as printed, in the repository (the test's working directory), through a shell; npx with a cache of its own.
      const replay = /replay: (.*)$/m.exec(explored.stdout)![1]!;
      expect(replay).toMatch(/^npx queue-drill run /);
      const replayed = await execa('bash', ['-c', `${replay} --out ${join(run.dir, 'replay')}`], {
        reject: false,
        env: { CI: 'true', npm_config_cache: join(run.dir, 'npm-cache') },
      });
      expect(replayed.exitCode, replayed.stderr).toBe(1);
      const [stamp] = readdirSync(join(run.dir, 'replay')).filter((d) => d !== 'latest');
      const checked = checkReport(JSON.parse(readFileSync(join(run.dir, 'replay', stamp!, 'report.json'), 'utf8')));
      if (!checked.ok) throw new Error(`the replay's report.json does not validate: ${JSON.stringify(checked.issues)}`);
      const { report } = checked;
      expect(report.version).toBe(REPORT_VERSION);
      expect(report.scenarios[0]!.verdict).toBe('fail');
      expect(report.scenarios[0]!.invariants.filter((v) => v.status === 'broken').map((v) => v.id)).toContain('attempts-bounded');
      expect(report.summary.invariants.broken).toBeGreaterThanOrEqual(1);
      expect(replay, 'the replay names what broke').toContain('--expect-broken');
      expect(report.scenarios[0]!.reproduction?.reproduced, 'the replay reproduced the run it replays').toBe(true);
    } finally {
      run.remove();
    }
  });

  it('reports no violation on the reference queue, and stops at its time budget', { timeout: 120_000 }, async () => {
    const run = tempRunDir('explore-ref');
    try {
      const explored = await cli(['explore', '--runs', '50', '--seed', '3', '--time-budget', '8s', '--parallel', '1', '--out', run.dir]);
      expect(explored.exitCode, explored.stdout + explored.stderr).toBe(0);
      // Stopped by its budget, not by running out of runs: fewer than the 50 asked for, and it says so.
      // After the seed, what the summary adds when some runs had a fault that never fired, or were starved past judging.
      const [, ran, cut] =
        /^explore: (\d+) schedule\(s\) in [\d.]+s, 0 violation\(s\) \(stopped by the time budget or a signal(?:; (\d+) run\(s\) cut off, not counted)?\), seed 3(?: \(\d+ run\(s\) with a fault that never fired\))?(?: \(\d+ run\(s\) the machine starved past judging\))?$/m.exec(
          explored.stdout,
        ) ?? [];
      expect(ran, explored.stdout).toBeDefined();
      expect(Number(ran)).toBeGreaterThan(0);
      expect(Number(ran)).toBeLessThan(50);
      // A run the budget cut off is said as such (never as ok), and counted apart from the runs that ran.
      const cutLines = explored.stderr.split('\n').filter((line) => / cut off by the time budget /.test(line));
      expect(cutLines.length, explored.stderr).toBe(Number(cut ?? 0));
      expect(explored.stderr.split('\n').filter((line) => /^lane \d+ run \d+: (ok|inconclusive) /.test(line))).toHaveLength(Number(ran));
    } finally {
      run.remove();
    }
  });
});
