import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareWithBaseline } from '../../src/report/baseline.js';
import { mergeShards } from '../../src/report/merge-shards.js';
import { type DrillReport, REPORT_VERSION, ReportError, reportJsonSchema, type ScenarioReport } from '../../src/report/schema.js';
import { runKey, runsOfShare } from '../../src/report/shard.js';
import { ShardMismatchError, sharedCommand } from '../../src/report/shard-check.js';
import { drillExitCode, summarize } from '../../src/report/verdict.js';
import { LATEST_LINK, readReport, writeReport } from '../../src/report/write-report.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, inconclusiveScenario } from './fixture.js';

/*
 * merge from fixture-built shards: a whole drill (the fixture's four
 * scenarios, one of each verdict, run twice with --repeat 2: eight runs) is
 * split as run --shard splits it, each share written as a shard's run
 * directory (report and scenario directories), and merged back. The merged
 * report must be the whole drill's, and shards that are not the shares of one
 * drill must be refused, each kind with its own message naming the files.
 */

const STAMP = '2026-08-25T10-00-00Z';
const COMMAND = 'queue-drill run scenarios.yaml --seed 42 --queue reference --repeat 2';

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('merge');
});
afterEach(() => temp.remove());

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A scenario run as a run with --repeat writes it: its directory named name.repeat, its paths in it. */
function asRun(scenario: ScenarioReport, repeat: number): ScenarioReport {
  const runDir = `drill-runs/${STAMP}/${scenario.name}.${repeat}`;
  return {
    ...clone(scenario),
    repeat,
    runDir,
    artefacts: { ...scenario.artefacts, store: `${runDir}/queue.sqlite`, ledger: `${runDir}/world.sqlite` },
  };
}

/** The whole drill as one run would report it: the given scenarios, twice (--repeat 2), with its summary and exit code. */
function wholeDrill(scenarios: readonly ScenarioReport[] = drillReport().scenarios): DrillReport {
  const runs = [1, 2].flatMap((repeat) => scenarios.map((scenario) => asRun(scenario, repeat)));
  const summary = summarize(runs);
  return { ...drillReport(), command: COMMAND, scenarios: runs, summary, exitCode: drillExitCode(summary, { interrupted: false, regressed: false }) };
}

/** Share `index` of `count` of the whole drill, as run --shard index/count reports it. */
function shareReport(whole: DrillReport, index: number, count: number): DrillReport {
  const scenarios = runsOfShare(whole.scenarios, { index, count });
  const summary = summarize(scenarios);
  return {
    ...clone(whole),
    command: `${COMMAND} --shard ${index}/${count} --out shard-${index} --parallel 2`,
    scenarios,
    summary,
    exitCode: drillExitCode(summary, { interrupted: false, regressed: false }),
    shard: { index, count, order: whole.scenarios.map(runKey) },
  };
}

/** Writes a shard's run directory (its report, and a directory with a log per scenario) and returns it. */
function writeShard(report: DrillReport, name = `shard-${report.shard?.index ?? 'whole'}`): string {
  const dir = join(temp.dir, name, STAMP);
  for (const scenario of report.scenarios) {
    mkdirSync(join(dir, basename(scenario.runDir)), { recursive: true });
    writeFileSync(join(dir, basename(scenario.runDir), 'w1.1.log'), `${runKey(scenario)} in ${name}\n`);
  }
  writeReport(dir, report);
  return dir;
}

/** Every share of the whole drill written as a shard's run directory. */
function writeShares(whole: DrillReport, count: number, prefix = 'shard'): string[] {
  return Array.from({ length: count }, (_, i) => writeShard(shareReport(whole, i + 1, count), `${prefix}-${i + 1}`));
}

const merge = (inputs: readonly string[], extra: Partial<Parameters<typeof mergeShards>[0]> = {}) =>
  mergeShards({
    inputs,
    out: join(temp.dir, 'merged'),
    command: `queue-drill merge ${inputs.join(' ')}`,
    now: () => Date.parse('2026-08-25T11:00:00Z'),
    ...extra,
  });

/** The error a merge of these inputs refuses with (fails the test if it merges). */
function refusal(inputs: readonly string[]): Error & { exitCode?: number } {
  try {
    merge(inputs);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the merge to be refused, but it merged');
}

describe('merge', () => {
  it('puts three shards back into the whole drill: its order, its summary and exit code, every other field of each scenario as the shard wrote it', () => {
    const whole = wholeDrill();
    const shards = writeShares(whole, 3);
    const { report, written, withoutArtefacts } = merge([shards[2]!, shards[0]!, join(shards[1]!, 'report.json')]);
    const runDir = join(temp.dir, 'merged', '2026-08-25T11-00-00.000Z');
    expect(report.scenarios.map(runKey)).toEqual(whole.scenarios.map(runKey));
    expect(report.scenarios).toEqual(
      whole.scenarios.map((s) => {
        const dir = join(runDir, basename(s.runDir));
        return { ...s, runDir: dir, artefacts: { ...s.artefacts, store: `${dir}/queue.sqlite`, ledger: `${dir}/world.sqlite` } };
      }),
    );
    expect(report.summary).toEqual(whole.summary);
    expect(report.exitCode).toBe(whole.exitCode);
    expect(report).toMatchObject({ seed: 42, queue: 'reference', file: 'scenarios.yaml', timeScale: 1 });
    expect('shard' in report).toBe(false);
    expect(report.merged?.map((s) => [s.index, s.report, s.exitCode])).toEqual([
      [1, join(shards[0]!, 'report.json'), 3],
      [2, join(shards[1]!, 'report.json'), 3],
      [3, join(shards[2]!, 'report.json'), 1],
    ]);
    expect(withoutArtefacts).toEqual([]);
    // Written by run's writer: every view, validated, `latest` moved to it; each scenario's directory copied from its shard.
    expect(readReport(written.json)).toEqual(report);
    expect(realpathSync(join(temp.dir, 'merged', LATEST_LINK))).toBe(realpathSync(runDir));
    expect(readFileSync(join(runDir, 'crash_after_write.2', 'w1.1.log'), 'utf8')).toBe('crash_after_write#2 in shard-2\n');
    expect(readFileSync(written.markdown, 'utf8')).toContain('Merged from 3 shards');
    expect(readFileSync(written.html, 'utf8')).toContain(`<li>shard 2/3: ${join(shards[1]!, 'report.json')} (exit code 3, `);
    // Each shard's own views say which share it is.
    expect(readFileSync(join(shards[2]!, 'report.md'), 'utf8')).toContain("- Shard 3/3: 2 of the drill's 8 scenario runs; join the shards with");
    expect(readFileSync(join(shards[2]!, 'report.html'), 'utf8')).toContain('<p class="shard">shard 3/3: 2 of the drill&#39;s 8 scenario runs;');
  });

  it.each([
    ['every scenario passed', [0, 0], 0],
    ['a scenario vacuous', [0, 2], 1],
    ['a scenario failed', [0, 1], 1],
    ['a harness error', [0, 3], 3],
  ] as const)('ends as one run would, %s: the verdicts counted again, not taken from the shards', (_, picks, exitCode) => {
    const all = drillReport().scenarios;
    // Distinct names: the first pick passes; the second's verdict decides.
    const whole = wholeDrill(picks.map((pick, i) => ({ ...all[pick]!, name: `s${i}` })));
    const { report } = merge(writeShares(whole, 2));
    expect(report.exitCode).toBe(exitCode);
    expect(report.summary).toEqual(summarize(whole.scenarios));
    // Two shards of 2 runs each, each its own verdict: shard 1 holds s0#1 and s0#2, which passed.
    expect(report.merged?.[0]?.exitCode).toBe(0);
  });

  it('ends 4 when the machine starved a scenario past judging and nothing failed: a shard that exited 4 merges like any other', () => {
    const whole = wholeDrill([
      { ...drillReport().scenarios[0]!, name: 's0' },
      { ...inconclusiveScenario(), name: 's1' },
    ]);
    const shards = writeShares(whole, 2);
    const { report } = merge(shards);
    expect(report.summary).toMatchObject({ passed: 2, inconclusive: 2, failed: 0 });
    expect(report.exitCode).toBe(4);
    expect(report.merged?.map((s) => s.exitCode)).toEqual([0, 4]);
    // With a failure beside it, the whole fails.
    const failing = wholeDrill([
      { ...drillReport().scenarios[1]!, name: 's0' },
      { ...inconclusiveScenario(), name: 's1' },
    ]);
    expect(merge(writeShares(failing, 2, 'failing'), { out: join(temp.dir, 'merged-failing') }).report.exitCode).toBe(1);
  });

  it('compares the whole drill with a baseline when given one: a regression fails it', () => {
    const passing = wholeDrill([drillReport().scenarios[0]!]);
    const failing = wholeDrill([{ ...drillReport().scenarios[1]!, name: passing.scenarios[0]!.name }]);
    const baseline = { baseline: { path: 'base/report.json', scenarios: clone(passing.scenarios) }, tolerance: { ratio: 1.5, slackMs: 500 } };
    const { report } = merge(writeShares(failing, 2), { baseline });
    expect(report.baseline).toEqual({ ...compareWithBaseline(baseline.baseline, report.scenarios, baseline.tolerance) });
    expect(report.baseline?.regressions.map((r) => r.kind)).toEqual(['now-fails', 'now-fails']);
    expect(report.exitCode).toBe(1);
    const again = merge(
      writeShares(passing, 2, 'passing').map((dir) => join(dir, 'report.json')),
      { baseline, out: join(temp.dir, 'merged-again') },
    );
    expect(again.report.baseline?.regressions).toEqual([]);
    expect(again.report.exitCode).toBe(0);
  });

  it('joins shares that auto calibrated to different time scales (one runner busier than another): the drill says the largest', () => {
    const whole = wholeDrill();
    const shares = [1, 2].map((index) => shareReport(whole, index, 2));
    shares[1]!.timeScale = 1.5;
    for (const scenario of shares[1]!.scenarios) scenario.timeScale = 1.5;
    const { report } = merge(shares.map((share, i) => writeShard(share, `calibrated-${i + 1}`)));
    expect(report.timeScale).toBe(1.5);
    expect(new Set(report.scenarios.map((s) => s.timeScale))).toEqual(new Set([1, 1.5]));
  });

  it('keeps the paths a shard wrote for a scenario whose directory is not beside its report, and says which', () => {
    const whole = wholeDrill();
    const shards = [shareReport(whole, 1, 2), shareReport(whole, 2, 2)].map((report, i) => {
      const dir = join(temp.dir, `bare-${i + 1}`);
      writeReport(dir, report);
      return dir;
    });
    const { report, withoutArtefacts } = merge(shards);
    expect([...withoutArtefacts].sort()).toEqual(whole.scenarios.map(runKey).sort());
    expect(report.scenarios.map((s) => s.runDir)).toEqual(whole.scenarios.map((s) => s.runDir));
  });
});

describe('merge refuses shards that are not the shares of one drill', () => {
  type Case = [string, (shards: DrillReport[]) => void, RegExp];
  const cases: Case[] = [
    ['another seed', (s) => (s[1]!.seed = 7), /not shares of one drill: the seed \(--seed\) differs: 42 in the first, 7 in the second/],
    ['another queue', (s) => (s[1]!.queue = 'postgres'), /the queue \(--queue\) differs: reference in the first, postgres in the second/],
    ['another scenarios file', (s) => (s[1]!.file = 'other.yaml'), /the scenarios file differs: scenarios.yaml in the first, other.yaml/],
    ['another queue-drill', (s) => (s[1]!.toolVersion = '0.2.0'), /the queue-drill version differs: 0.1.0 in the first, 0.2.0/],
    ['another shard count', (s) => (s[1]!.shard!.count = 4), /the shard count \(--shard i\/N\) differs: 3 in the first, 4 in the second/],
    [
      'another drill order (--only)',
      (s) => s[1]!.shard!.order.splice(1, 1),
      /the drills' scenario runs differ \(--only, --repeat, or the scenarios file's contents\): run 2 is timeout_blind_retry#1 in the first, crash_after_verify#1/,
    ],
    [
      'another command',
      (s) => (s[1]!.command = `${COMMAND} --restart-servers --shard 2/3`),
      /the commands differ beyond --shard, --out, --parallel.*: `run scenarios.yaml --seed 42 --queue reference --repeat 2` in the first, `.* --restart-servers` in the second/,
    ],
    ['a report of a whole run', (s) => delete s[0]!.shard, /shard-1\/.*report.json: not a shard's report \(it has no `shard`/],
    [
      'an overlap',
      (s) => {
        s[0]!.scenarios.push(s[1]!.scenarios[0]!);
        s[0]!.summary = summarize(s[0]!.scenarios);
      },
      /the shards overlap: scenario run timeout_blind_retry#1 is in both .*shard-1\/.*report.json \(shard 1\/3\) and .*shard-2\/.*report.json \(shard 2\/3\)/,
    ],
    [
      'a run of another share',
      (s) => {
        s[0]!.scenarios.push(s[1]!.scenarios.shift()!);
        s[0]!.summary = summarize(s[0]!.scenarios);
        s[1]!.summary = summarize(s[1]!.scenarios);
      },
      /shard-1\/.*report.json: shard 1\/3 holds scenario run timeout_blind_retry#1, which is shard 2\/3's/,
    ],
    [
      'an interrupted shard',
      (s) => {
        s[2]!.scenarios.pop();
        s[2]!.summary = summarize(s[2]!.scenarios);
        s[2]!.exitCode = 3;
      },
      /shard-3\/.*report.json: shard 3\/3 has 1 of its 2 scenario runs \(interrupted\? its exit code was 3\); missing: timeout_blind_retry#2; run that shard again/,
    ],
    [
      'a shard that says it was interrupted',
      (s) => {
        const last = s[2]!.scenarios.pop()!;
        s[2]!.interruption = { by: 'SIGINT', notStarted: [{ name: last.name, repeat: last.repeat, queue: last.queue }] };
        s[2]!.summary = summarize(s[2]!.scenarios, 1);
        s[2]!.exitCode = 3;
      },
      /shard-3\/.*report.json: shard 3\/3 was interrupted \(by SIGINT\); run that shard again/,
    ],
  ];

  it.each(cases)('%s', (_, spoil, message) => {
    const whole = wholeDrill();
    const shards = [1, 2, 3].map((index) => shareReport(whole, index, 3));
    spoil(shards);
    const error = refusal(shards.map((report, i) => writeShard(report, `shard-${i + 1}`)));
    expect(error).toBeInstanceOf(ShardMismatchError);
    expect(error.message).toMatch(message);
    expect(error.exitCode).toBe(2);
    expect(existsSync(join(temp.dir, 'merged'))).toBe(false);
  });

  it('a shard given twice, and a share missing: which one, its runs, and the command that runs it', () => {
    const shards = writeShares(wholeDrill(), 3);
    expect(refusal([shards[0]!, shards[1]!, join(shards[0]!, 'report.json')]).message).toBe(
      `shard 1/3 given twice: ${join(shards[0]!, 'report.json')} and ${join(shards[0]!, 'report.json')}`,
    );
    const missing = refusal([shards[0]!, shards[2]!]);
    expect(missing).toBeInstanceOf(ShardMismatchError);
    expect(missing.message).toBe(
      "1 of the 3 shards is missing; give every shard's run directory (these commands run the missing ones):\n" +
        `  shard 2/3 (3 runs: timeout_blind_retry#1, crash_after_write#2, world_unreachable#2): ${COMMAND} --shard 2/3 --out shard-1 --parallel 2`,
    );
  });

  it('a report of another report version, naming its file', () => {
    const shards = writeShares(wholeDrill(), 2);
    const file = join(shards[1]!, 'report.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), version: 5 }));
    const error = refusal(shards);
    expect(error).toBeInstanceOf(ReportError);
    expect(error.message).toBe(`${file}: not a queue-drill report of version ${REPORT_VERSION} (version: 5)`);
    expect(error.exitCode).toBe(2);
  });

  it('accepts shards whose commands differ only in where and how each runner ran', () => {
    const shared = COMMAND.replace(/^queue-drill /, '');
    expect(sharedCommand(`${COMMAND} --shard 1/3 --out a --parallel 4 --json --pg-url postgres://x --keep`)).toBe(shared);
    expect(sharedCommand(`${COMMAND} --shard=2/3 --out=b --redis-url=redis://y`)).toBe(shared);
    expect(sharedCommand(`${COMMAND} --restart-servers --shard 1/3`)).toBe(`${shared} --restart-servers`);
    // Each runner prints the command as it started queue-drill: a global install, npx in a clone, node on the built file.
    expect(sharedCommand(`npx ${COMMAND} --shard 1/3`)).toBe(shared);
    expect(sharedCommand(`node /work/clone/dist/cli/main.js ${shared} --shard 2/3`)).toBe(shared);
  });
});

describe('the report schema of a shard', () => {
  it('declares shard and merged in report.schema.json, optional, closed, with every field a shard and a merge write', () => {
    const schema = reportJsonSchema() as {
      required: string[];
      properties: Record<
        string,
        { type?: string; required?: string[]; additionalProperties?: boolean; properties?: Record<string, unknown>; items?: never }
      >;
    };
    expect(schema.required).not.toContain('shard');
    expect(schema.required).not.toContain('merged');
    const shard = schema.properties.shard!;
    expect(shard).toMatchObject({ type: 'object', additionalProperties: false });
    expect([...shard.required!].sort()).toEqual(['count', 'index', 'order']);
    expect(Object.keys(shard.properties!).sort()).toEqual(Object.keys(shareReport(wholeDrill(), 1, 2).shard!).sort());
    const merged = schema.properties.merged as unknown as { type: string; items: { required: string[]; additionalProperties: boolean } };
    expect(merged.type).toBe('array');
    expect(merged.items.additionalProperties).toBe(false);
    expect([...merged.items.required].sort()).toEqual(['command', 'durationMs', 'exitCode', 'index', 'report', 'startedAt']);
  });
});
