import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BaselineError, compareWithBaseline, readBaseline } from '../../src/report/baseline.js';
import { baselineLines } from '../../src/report/baseline-lines.js';
import { checkReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, inconclusiveScenario } from './fixture.js';

// The fixture's scenarios: crash_after_write (pass), timeout_blind_retry (fail), a vacuous one and a harness error.
const asBaseline = (report = drillReport()) => ({ path: 'base/report.json', scenarios: JSON.parse(JSON.stringify(report.scenarios)) });

describe('compareWithBaseline', () => {
  it('finds nothing against itself', () => {
    const report = drillReport();
    expect(compareWithBaseline(asBaseline(report), report.scenarios)).toMatchObject({ regressions: [], improvements: [], added: [], missing: [] });
  });

  it('lists an improvement, a new scenario and one gone, none of which fail', () => {
    const then = drillReport();
    const now = drillReport();
    now.scenarios[1] = { ...now.scenarios[0]!, name: then.scenarios[1]!.name };
    now.scenarios[3] = { ...now.scenarios[3]!, name: 'brand-new' };
    const compared = compareWithBaseline(asBaseline(then), now.scenarios);
    expect(compared.regressions).toEqual([]);
    expect(compared.improvements).toEqual([`${then.scenarios[1]!.name}: fail in the baseline, pass now`]);
    expect(compared.added).toEqual(['brand-new']);
    expect(compared.missing).toEqual([then.scenarios[3]!.name]);
  });

  it("with --only, compares the scenarios run and counts the baseline's others in one line, never as gone", () => {
    const then = drillReport();
    const asked = [then.scenarios[0]!.name, 'brand-new'];
    const now = [then.scenarios[0]!, { ...then.scenarios[0]!, name: 'brand-new' }];
    const compared = compareWithBaseline(asBaseline(then), now, undefined, asked);
    expect(compared).toMatchObject({ regressions: [], added: ['brand-new'], missing: [], notRun: 3 });
    expect(baselineLines(compared).others).toEqual([
      'new: brand-new (not in the baseline)',
      "not compared: 3 of the baseline's scenario runs, left out by --only",
    ]);
    // A scenario asked for and not run (interrupted, say) is still gone.
    const short = compareWithBaseline(asBaseline(then), [then.scenarios[0]!], undefined, [then.scenarios[0]!.name, then.scenarios[1]!.name]);
    expect(short).toMatchObject({ missing: [then.scenarios[1]!.name], notRun: 2 });
    // Without --only, nothing is left out on purpose.
    expect(compareWithBaseline(asBaseline(then), [then.scenarios[0]!]).notRun).toBeUndefined();
  });

  it('takes a slower recovery for a regression only past both the ratio and the slack', () => {
    const then = drillReport();
    const slower = (ms: number) => {
      const now = drillReport();
      now.scenarios[0]!.recovery[0]!.killToSettledMs = ms;
      return compareWithBaseline(asBaseline(then), now.scenarios).regressions.map((r) => r.kind);
    };
    // The baseline recovered in 1,400 ms: x1.5 is 2,100, +500 is 1,900.
    expect(slower(2_000)).toEqual([]);
    expect(slower(2_101)).toEqual(['slower-recovery']);
    expect(compareWithBaseline(asBaseline(then), drillReport().scenarios, { ratio: 1, slackMs: 0 }).regressions).toEqual([]);
  });

  it("takes each side's recovery at its own time scale: a run stretched ×2 by a busier machine is no slower", () => {
    const then = drillReport();
    const at = (scale: number, ms: number) => {
      const now = drillReport();
      now.scenarios[0]!.timeScale = scale;
      now.scenarios[0]!.recovery[0]!.killToSettledMs = ms;
      return compareWithBaseline(asBaseline(then), now.scenarios).regressions;
    };
    // The baseline recovered in 1,400 ms at ×1: 2,800 ms at ×2 is the same recovery.
    expect(at(2, 2_800)).toEqual([]);
    expect(at(2, 4_300)).toEqual([
      {
        scenario: then.scenarios[0]!.name,
        kind: 'slower-recovery',
        detail: 'recovery 4300 ms at ×2, was 1400 ms at ×1: 2150 ms against 1400 ms at ×1 (tolerance: ×1.5 and +500 ms)',
      },
    ]);
  });

  it('takes a scenario the machine starved on either side for neither a regression nor an improvement: a starved run shows nothing of the queue', () => {
    const then = drillReport();
    const name = then.scenarios[0]!.name;
    // Passed there, inconclusive now, and its recovery never settled: no now-fails, no slower recovery.
    const starved = { ...inconclusiveScenario(), name };
    starved.recovery = [{ ...starved.recovery[0]!, killToSettledMs: 60_000 }];
    expect(compareWithBaseline(asBaseline(then), [starved])).toMatchObject({ regressions: [], improvements: [] });
    // Inconclusive there: a failure now is not a regression from it, nor a pass now an improvement on it.
    const baseline = asBaseline({ ...then, scenarios: [starved] });
    expect(compareWithBaseline(baseline, [{ ...then.scenarios[1]!, name }])).toMatchObject({ regressions: [], improvements: [] });
    expect(compareWithBaseline(baseline, [then.scenarios[0]!])).toMatchObject({ regressions: [], improvements: [] });
  });

  it('keeps the report valid with a comparison in it, and refuses exit code 0 beside a regression', () => {
    const report = drillReport();
    report.baseline = { ...compareWithBaseline(asBaseline(), report.scenarios) };
    expect(checkReport(report).ok).toBe(true);
    const passing = { ...report, exitCode: 0 as const, scenarios: [report.scenarios[0]!] };
    passing.summary = { ...passing.summary, scenarios: 1, passed: 1, failed: 0, vacuous: 0, errors: 0 };
    passing.baseline = { ...report.baseline, regressions: [{ scenario: 'x', kind: 'now-fails', detail: 'd' }] };
    expect(checkReport(passing).ok).toBe(false);
  });
});

describe('readBaseline', () => {
  let temp: ReturnType<typeof tempRunDir>;
  beforeEach(() => {
    temp = tempRunDir('baseline-read');
  });
  afterEach(() => temp.remove());

  it('reads a report.json, a run directory, or the runs directory holding latest', () => {
    const runDir = join(temp.dir, 'runs', 'run-1');
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, 'report.json'), JSON.stringify(drillReport()));
    symlinkSync('run-1', join(temp.dir, 'runs', 'latest'));
    for (const path of [join(runDir, 'report.json'), runDir, join(temp.dir, 'runs')]) expect(readBaseline(path).scenarios).toHaveLength(4);
  });

  it('reads a report of an earlier version by the fields it compares', () => {
    const file = join(temp.dir, 'old.json');
    writeFileSync(file, JSON.stringify({ version: 3, tool: 'queue-drill', scenarios: [{ name: 'a', verdict: 'pass', faults: [] }] }));
    expect(readBaseline(file).scenarios).toEqual([expect.objectContaining({ name: 'a', repeat: 1, verdict: 'pass', recovery: [] })]);
  });

  it('refuses what is not a report, naming the path', () => {
    const file = join(temp.dir, 'other.json');
    writeFileSync(file, '{"hello": 1}');
    expect(() => readBaseline(file)).toThrow(BaselineError);
    expect(() => readBaseline(file)).toThrow(`--baseline ${file}: not a queue-drill report`);
    expect(() => readBaseline(join(temp.dir, 'none'))).toThrow(/cannot read a report there/);
  });
});
