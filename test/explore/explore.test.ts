import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { broken, type ExploreOptions, type ExploreRunEvent, explore } from '../../src/explore/explore.js';
import { exploreExitCode, exploreSummary, runLine } from '../../src/explore/summary.js';
import { queueImpl } from '../../src/queues/registry.js';
import type { ScenarioReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport } from '../report/fixture.js';

/*
 * Explore's own logic, with a runner of its own instead of real processes: a
 * run that a schedule's runner says broke an invariant, a rerun that does or
 * does not break it again, a run still going when the time budget ends. What
 * is judged here is what explore does with the reports, not the reports.
 */

const [PASSING, FAILING] = drillReport().scenarios as [ScenarioReport, ScenarioReport];

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('explore-logic');
});
afterEach(() => temp.remove());

/** Explore with `run` as its runner, the events it told, and whether each came before explore resolved. */
async function exploreWith(run: NonNullable<ExploreOptions['run']>, options: Partial<ExploreOptions> = {}) {
  const told: Array<ExploreRunEvent & { afterEnd: boolean }> = [];
  let ended = false;
  const result = await explore({
    queue: 'reference',
    adapter: queueImpl('reference'),
    runs: 3,
    seed: 7,
    timeBudgetMs: 60_000,
    parallel: 1,
    out: join(temp.dir, 'out'),
    signal: new AbortController().signal,
    onRun: (event) => told.push({ ...event, afterEnd: ended }),
    run,
    ...options,
  });
  ended = true;
  return { result, told };
}

/** A runner whose runs break FAILING's invariants in the folders named, and pass elsewhere. */
const breaksIn =
  (...folders: string[]): NonNullable<ExploreOptions['run']> =>
  async (_schedule, _options, dir) =>
    folders.includes(basename(dir)) ? FAILING : PASSING;

describe('explore: a catch that does not reproduce', () => {
  it('is a flaky finding with both runs, not a counterexample, and fails the explore in words of its own', async () => {
    const { result } = await exploreWith(breaksIn('lane1-run1'));
    expect(result.counterexamples).toEqual([]);
    expect(result.flaky).toHaveLength(1);
    const [flaky] = result.flaky;
    const out = join(temp.dir, 'out');
    expect(flaky!.caught).toEqual({ broken: broken(FAILING), runDir: join(out, 'lane1-run1') });
    expect(flaky!.rerun).toEqual({ runDir: join(out, 'lane1-rerun'), verdict: 'pass' });
    // Both runs kept, each with its judged report.
    for (const dir of [flaky!.caught.runDir, flaky!.rerun.runDir]) expect(existsSync(join(dir, 'scenario-report.json')), dir).toBe(true);
    const file = readFileSync(flaky!.file, 'utf8');
    expect(basename(flaky!.file)).toBe('flaky-lane1.yaml');
    expect(file).toMatch(/^# Replay: .* --expect-broken /);
    expect(file).toContain(`# Flaky: ${flaky!.caught.runDir} broke ${broken(FAILING).join(', ')}; its rerun, ${flaky!.rerun.runDir}, broke nothing`);
    expect(JSON.parse(readFileSync(join(out, 'explore.json'), 'utf8')).flaky).toHaveLength(1);

    const printed = exploreSummary(result, 7);
    expect(printed).toMatch(/^flaky \(lane 1, seed 7, shrunk \d+ times to \d+ fault\(s\)\): a run broke .+, and its rerun broke nothing \(pass\)$/m);
    expect(printed).not.toContain('counterexample');
    expect(printed).not.toContain('nothing on the final rerun');
    expect(printed).toMatch(
      /^explore: \d+ schedule\(s\) in [\d.]+s, 0 violation\(s\), 1 flaky finding\(s\) \(broke once, not on a rerun\), seed 7$/m,
    );
    expect(exploreExitCode(result, false)).toBe(1);
  });

  it('stays a counterexample when the rerun breaks it again', async () => {
    const { result } = await exploreWith(breaksIn('lane1-run1', 'lane1-rerun'));
    expect(result.flaky).toEqual([]);
    expect(result.counterexamples).toHaveLength(1);
    expect(result.counterexamples[0]!.broken).toEqual(broken(FAILING));
    expect(result.counterexamples[0]!.runDir).toBe(join(temp.dir, 'out', 'lane1-rerun'));
    expect(exploreSummary(result, 7)).toMatch(/^counterexample \(lane 1, seed 7, shrunk \d+ times to \d+ fault\(s\)\): breaks .+$/m);
    expect(exploreExitCode(result, false)).toBe(1);
  });
});

describe('explore: the time budget', () => {
  it('cuts the runs in flight off, waits for them, and neither counts them nor tells of them after it ends', async () => {
    // A run that goes on until its signal stops it (the test's own timeout stops one that never is); the budget is 300 ms.
    const runs = { started: 0, ended: 0 };
    const slow: NonNullable<ExploreOptions['run']> = (_schedule, options) =>
      new Promise((resolve) => {
        runs.started++;
        options.signal.addEventListener(
          'abort',
          () => {
            runs.ended++;
            resolve({ ...PASSING, verdict: 'interrupted' });
          },
          { once: true },
        );
      });
    const { result, told } = await exploreWith(slow, { timeBudgetMs: 300 });
    // Nothing can arrive later either: every run explore started had ended when it returned.
    expect(runs.ended).toBe(runs.started);
    expect(told.length).toBeGreaterThan(0);
    expect(told.filter((event) => event.afterEnd)).toEqual([]);
    expect(told.map((event) => event.cutOff)).toEqual(told.map(() => 'the time budget'));
    expect(result).toMatchObject({ runs: 0, vacuous: 0, cutOff: told.length, counterexamples: [], flaky: [], interrupted: true, out: null });
    expect(runLine(told[0]!)).toMatch(/^lane 1 run 1: cut off by the time budget [\d.]+s in: judged not at all, not counted$/m);
    expect(runLine(told[0]!)).not.toMatch(/\bok\b/);
    const printed = exploreSummary(result, 7).trimEnd().split('\n');
    expect(printed.at(-2)).toMatch(/, 0 violation\(s\) \(stopped by the time budget or a signal; 1 run\(s\) cut off, not counted\), seed 7$/);
    expect(printed.at(-1)).toBe('nothing found, nothing written');
    expect(exploreExitCode(result, false)).toBe(0);
  });
});

describe('explore: runs the machine starved', () => {
  it('are counted apart (they could catch nothing), never as a catch, and the summary says how many', async () => {
    const starved: ScenarioReport = { ...PASSING, verdict: 'inconclusive' };
    const { result } = await exploreWith(async (_schedule, _options, dir) => (basename(dir) === 'lane1-run2' ? starved : PASSING));
    expect(result).toMatchObject({ runs: 3, inconclusive: 1, counterexamples: [], flaky: [] });
    expect(exploreSummary(result, 7)).toMatch(/, seed 7 \(1 run\(s\) the machine starved past judging\)$/m);
    expect(exploreExitCode(result, false)).toBe(0);
  });
});
