import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { restartsServer } from '../../src/drill/run-judged.js';
import { usesNetwork } from '../../src/drill/runner/drill-network.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport } from '../../src/report/schema.js';
import { runKey } from '../../src/report/shard.js';
import { readReport } from '../../src/report/write-report.js';
import { loadScenarioFile } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The shipped drill (scenarios.yaml, on the default SQLite queue) split in
 * three as three CI runners would run it, one after another here (two drills
 * at once would starve each other's workers), each with the default two
 * lanes, then merged. The merged report must hold the file's every scenario
 * in its order, with what one run of the whole drill gives: every scenario
 * passes but those the queue cannot run as asked (on SQLite, the one that
 * restarts the queue's server and the five that cut the network: not
 * supported), and exit 0. A run of the whole
 * drill is not repeated here to compare with (it would double the test's
 * time); a run that did not give those verdicts would fail `npm run drill`.
 * A replay command from the merged report runs its scenario again.
 */

const FILE = 'scenarios.yaml';
const temp = tempRunDir('shard-merge');
afterAll(() => temp.remove());

const cli = (...args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true' } });
/** The merge step of a GitHub Actions job: its summary goes on the run's page. */
const STEP_SUMMARY = join(temp.dir, 'step-summary.md');

describe('the shipped drill as --shard 1/3, 2/3 and 3/3, merged', () => {
  it('gives the scenario set and the verdicts of one run of the whole drill', { timeout: 900_000 }, async () => {
    const drill = resolveScenarios(loadScenarioFile(FILE), { seed: 1, only: [] });
    // What sqlite cannot run as asked: a restart of the queue's server, and the network faults, which an embedded queue has not.
    const unrunnable = drill.filter((s) => restartsServer(s) || usesNetwork(s)).map((s) => s.name);
    expect(unrunnable).toEqual([
      'queue-server-restart',
      'worker-partitioned-past-lease',
      'complete-reply-lost',
      'connections-reset-before-complete',
      'slow-link-past-renewal',
      'sweep-partitioned-before-release',
    ]);
    const runnable = drill.length - unrunnable.length;

    const shards: string[] = [];
    for (const index of [1, 2, 3]) {
      const out = join(temp.dir, `shard-${index}`);
      // As a CI job runs it: a run the machine starved (inconclusive, never blamed on the queue) is run again at a larger scale.
      const result = await cli('run', FILE, '--shard', `${index}/3`, '--parallel', '2', '--retry-inconclusive', '2', '--out', out);
      const report = readReport(join(out, 'latest', 'report.json'));
      expect(result.exitCode, result.stderr).toBe(report.exitCode);
      expect(report.shard).toEqual({ index, count: 3, order: drill.map((s) => `${s.name}#1`) });
      expect(report.scenarios.map(runKey)).toEqual(report.shard!.order.filter((_, position) => position % 3 === index - 1));
      expect(result.stderr).toContain(`shard ${index}/3: ${report.scenarios.length} of the drill's ${drill.length} scenario runs`);
      shards.push(join(out, 'latest'));
    }

    writeFileSync(STEP_SUMMARY, '## earlier step\n');
    const merged = await execa(process.execPath, [CLI_PATH, 'merge', ...shards, '--out', join(temp.dir, 'merged')], {
      reject: false,
      env: { CI: 'true', GITHUB_STEP_SUMMARY: STEP_SUMMARY },
    });
    // First what merge said, so a merge that wrote nothing fails with its reason (seen once in CI, with no report to read).
    expect(merged.exitCode, merged.stderr).toBe(0);
    const report: DrillReport = readReport(join(temp.dir, 'merged', 'latest', 'report.json'));
    expect(report.scenarios.map((s) => s.name)).toEqual(drill.map((s) => s.name));
    const verdicts = Object.fromEntries(report.scenarios.map((s) => [s.name, s.verdict]));
    expect(verdicts).toEqual(Object.fromEntries(drill.map((s) => [s.name, unrunnable.includes(s.name) ? 'not_supported' : 'pass'])));
    expect(report.summary).toMatchObject({
      scenarios: drill.length,
      passed: runnable,
      notSupported: unrunnable.length,
      notJudged: 0,
      failed: 0,
      vacuous: 0,
      errors: 0,
    });
    expect(report.exitCode).toBe(0);
    expect(merged.stderr).toContain(`${runnable}/${drill.length} passed, 0 failed, 0 vacuous, ${unrunnable.length} not supported, 0 errors`);
    expect(merged.stderr).toContain(`[${drill.length}/${drill.length}] N/S     ${drill.at(-1)!.name}`);
    expect(report.merged?.map((s) => s.index)).toEqual([1, 2, 3]);
    // The whole drill's summary, after what the earlier step wrote.
    const summary = readFileSync(STEP_SUMMARY, 'utf8');
    expect(summary.startsWith('## earlier step\n')).toBe(true);
    expect(summary).toContain(`${runnable} of ${drill.length} scenarios passed (exit code 0)`);
    // The merged run directory stands alone: each scenario's store was copied into it.
    const judged = report.scenarios.find((s) => s.verdict === 'pass')!;
    expect(judged.artefacts.store.startsWith(join(temp.dir, 'merged'))).toBe(true);
    expect(existsSync(judged.artefacts.store)).toBe(true);

    // A replay command from the merged report runs its scenario again, as from a run's.
    // As printed in a clone (npx queue-drill run …); pasted commands are test/selftest/printed-commands.test.ts's.
    const replay = judged.replay.split(' ');
    expect(replay.slice(0, 3)).toEqual(['npx', 'queue-drill', 'run']);
    const again = await cli(...replay.slice(2), '--out', join(temp.dir, 'replay'));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readReport(join(temp.dir, 'replay', 'latest', 'report.json')).scenarios.map((s) => [s.name, s.verdict])).toEqual([[judged.name, 'pass']]);
  });
});
