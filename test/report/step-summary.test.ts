import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendStepSummary, renderStepSummary } from '../../src/report/step-summary.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, INCONCLUSIVE_LINES, inconclusiveReport, notJudgedReport, passingReport, retriedReport } from './fixture.js';

/*
 * The summary `queue-drill run` appends to $GITHUB_STEP_SUMMARY, from the
 * fixture's report (one scenario of each verdict): the counts, each scenario
 * that did not pass with why, the seed, the replay commands; nothing a
 * scenario's text holds can break out of its Markdown. Then the appending:
 * after what the file holds, never over it, and only when the variable is set.
 * A real run appending it is test/cli/step-summary.test.ts.
 */

/** The Markdown outside code spans and blocks: what GitHub renders as Markdown and HTML. */
function outsideCode(markdown: string): string {
  return markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1$/gm, '').replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, '');
}

describe('renderStepSummary', () => {
  const report = drillReport();
  const summary = renderStepSummary(report, 'drill-runs/2026-08-25T10-00-00Z/report.html');

  it('opens with the verdict counts, the exit code, the queue, the seed and where the whole report is', () => {
    expect(summary.split('\n').slice(0, 7)).toEqual([
      '### queue-drill: ❌ 1 of 4 scenarios passed (exit code 1)',
      '',
      '| Passed | Failed | Vacuous | Inconclusive (starved) | Not judged | Errors |',
      '| --- | --- | --- | --- | --- | --- |',
      '| 1 | 1 | 1 | 0 | 0 | 1 |',
      '',
      'Queue `reference` · seed `42` · 15.7 s · the whole report: `drill-runs/2026-08-25T10-00-00Z/report.html`',
    ]);
  });

  it('lists each scenario that did not pass, with the invariants it broke or why else, and never one that passed', () => {
    const listed = summary.split('\n').filter((line) => line.startsWith('- '));
    expect(listed).toEqual([
      expect.stringMatching(/^- ❌ `timeout_blind_retry` fail: broke `no-duplicate-effect`, `review-routing`; 1 job\(s\) did not end as expected$/),
      expect.stringMatching(/^- ⚠️ `crash_after_verify` vacuous: crash at after\\_verify .*never fired: 0 hits$/),
      '- ❌ `world_unreachable` error: the harness failed: QD\\_WORLD\\_NOT\\_READY: the world did not answer on 127.0.0.1 within 5000 ms',
    ]);
    expect(summary).not.toContain('crash_after_write');
  });

  it("gives every listed scenario's replay command, in one shell block", () => {
    const block = /```sh\n([\s\S]*?)\n```/.exec(summary)?.[1];
    expect(block?.split('\n')).toEqual(report.scenarios.filter((s) => s.verdict !== 'pass').map((s) => s.replay));
  });

  it('says nothing failed when nothing did: the counts, and no list', () => {
    const passed = renderStepSummary(passingReport());
    expect(passed).toMatch(/^### queue-drill: ✅ 1 of 1 scenario passed \(exit code 0\)\n/);
    expect(passed).not.toContain('What did not pass');
    expect(passed).not.toContain('```');
  });

  it('gives a scenario not judged its reason and no replay (there is nothing to replay)', () => {
    const notJudged = notJudgedReport();
    notJudged.scenarios[0] = { ...notJudged.scenarios[0]!, verdict: 'not_judged', notJudged: 'the lease is below the queue’s minimum of 1 s' };
    const text = renderStepSummary(notJudged);
    expect(text).toContain('- ➖ `crash_after_write` not_judged: not judged: the lease is below the queue’s minimum of 1 s');
    expect(text).not.toContain('```sh');
  });

  it('keeps what a scenario says inside its Markdown: no tag, link or emphasis escapes, whatever the name or reason holds', () => {
    const hostile = drillReport();
    hostile.scenarios[2] = {
      ...hostile.scenarios[2]!,
      name: 'a`b|<img src=x>',
      unfired: ['<script>alert(1)</script> [x](http://e) **bold** | `tick`\nnext'],
    };
    const text = renderStepSummary(hostile);
    const rendered = outsideCode(text);
    expect(rendered).not.toMatch(/(?<!\\)<(script|img)/);
    expect(rendered).not.toMatch(/(?<!\\)\[x\]/);
    expect(rendered).not.toMatch(/(?<!\\)\*\*bold/);
    expect(text).toContain('``a`b|<img src=x>``');
    // One scenario, one line: a line break in a reason does not start a new one.
    expect(text.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(3);
  });

  it('lists at most 25 scenarios, then points at the report for the rest', () => {
    const many = drillReport();
    const failing = many.scenarios[1]!;
    many.scenarios = Array.from({ length: 30 }, (_, i) => ({ ...failing, name: `s${i}`, replay: `queue-drill run x --only s${i}` }));
    const text = renderStepSummary(many);
    expect(text.split('\n').filter((line) => line.startsWith('- ❌'))).toHaveLength(25);
    expect(text).toContain('- and 5 more: see the report');
    expect(text).not.toContain('--only s25');
  });

  it('says what regressed against the baseline', () => {
    const regressed = drillReport();
    regressed.baseline = {
      baseline: 'baseline/report.json',
      tolerance: { ratio: 1.5, slackMs: 500 },
      regressions: [{ scenario: 'timeout_blind_retry', kind: 'now-fails', detail: 'passed in the baseline, fail now' }],
      improvements: [],
      added: [],
      missing: ['gone-one'],
    };
    const text = renderStepSummary(regressed);
    expect(text).toContain('**1 regression against the baseline baseline/report.json**');
    expect(text).toContain('- ❌ regression: timeout\\_blind\\_retry: passed in the baseline, fail now');
    // The rest of the comparison (what improved, came or went) is the report's.
    expect(text).not.toContain('gone-one');
  });
});

describe('renderStepSummary of a drill on a starved machine', () => {
  const summary = renderStepSummary(inconclusiveReport());

  it('counts the inconclusive scenario in a column of its own, under exit code 4, and says how the machine starved the drill', () => {
    expect(summary.split('\n').slice(0, 5)).toEqual([
      '### queue-drill: ⏳ 1 of 2 scenarios passed (exit code 4)',
      '',
      '| Passed | Failed | Vacuous | Inconclusive (starved) | Not judged | Errors |',
      '| --- | --- | --- | --- | --- | --- |',
      '| 1 | 0 | 0 | 1 | 0 | 0 |',
    ]);
    expect(summary).toContain(
      '\nThe machine starved the drill: worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010) in slow\\_machine; 1 inconclusive: ',
    );
  });

  it('lists it as inconclusive with its worst span and the first finding starvation explains, escaped, and gives its replay', () => {
    const listed = summary.split('\n').filter((line) => line.startsWith('- '));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatch(
      /^- ⏳ `slow_machine` inconclusive: the machine starved the drill, worst span w1#2 510 ms \(not run from 10:00:01\.500 to 10:00:02\.010\); no-lost-job: the drill stopped before rest/,
    );
    expect(listed[0]).toMatch(/; and 1 more explained by starvation$/);
    expect(listed[0]).not.toContain('broke');
    // A line with markup in it, listed first, stays text.
    const hostile = inconclusiveReport();
    hostile.scenarios[1]!.inconclusive = [...INCONCLUSIVE_LINES].reverse();
    const text = renderStepSummary(hostile);
    expect(INCONCLUSIVE_LINES[1]).toContain('<i>');
    expect(text).toContain('\\| \\<i\\>\\*\\</i\\>');
    expect(outsideCode(text)).not.toMatch(/(?<!\\)<i>/);
    expect(summary).toContain('```sh\nqueue-drill drill scenarios.yaml --only slow_machine --seed 42 --queue reference\n```');
  });
});

describe('appendStepSummary', () => {
  let run: ReturnType<typeof tempRunDir>;
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  beforeEach(() => {
    run = tempRunDir('step-summary');
    warnings.length = 0;
  });
  afterEach(() => run.remove());

  it('appends after what the file holds, a blank line between, and leaves what was there', () => {
    const file = join(run.dir, 'summary.md');
    writeFileSync(file, '## Tests\n\n42 passed');
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, passingReport(), undefined, warn);
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, drillReport(), undefined, warn);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(`## Tests\n\n42 passed\n\n${renderStepSummary(passingReport())}\n\n${renderStepSummary(drillReport())}\n`);
    expect(warnings).toEqual([]);
  });

  it('starts a file that does not exist yet', () => {
    const file = join(run.dir, 'new.md');
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, passingReport(), undefined, warn);
    expect(readFileSync(file, 'utf8')).toBe(`${renderStepSummary(passingReport())}\n`);
  });

  it('names a report inside the current directory by its relative path, one outside by its whole path', () => {
    const file = join(run.dir, 'paths.md');
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, passingReport(), join(process.cwd(), 'drill-runs', 'x', 'report.html'), warn);
    appendStepSummary({ GITHUB_STEP_SUMMARY: file }, passingReport(), join(run.dir, 'report.html'), warn);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('the whole report: `drill-runs/x/report.html`');
    expect(text).toContain(`the whole report: \`${join(run.dir, 'report.html')}\``);
  });

  it('writes nothing when GITHUB_STEP_SUMMARY is not set or empty', () => {
    appendStepSummary({}, drillReport(), undefined, warn);
    appendStepSummary({ GITHUB_STEP_SUMMARY: '' }, drillReport(), undefined, warn);
    expect(warnings).toEqual([]);
  });

  it('warns, and does not throw, when the file cannot be written', () => {
    const dir = join(run.dir, 'a-directory');
    mkdirSync(dir);
    appendStepSummary({ GITHUB_STEP_SUMMARY: dir }, drillReport(), undefined, warn);
    expect(warnings).toEqual([expect.stringMatching(/^queue-drill: could not append the summary to GITHUB_STEP_SUMMARY \(.*a-directory\): EISDIR/)]);
  });
});

describe('renderStepSummary of a drill that chose its time scale and ran a starved scenario again', () => {
  const summary = renderStepSummary(retriedReport());

  it('says the time scale and how it was chosen beside the seed', () => {
    expect(summary).toContain(
      '\nQueue `reference` · seed `42` · 15.7 s · time scale ×1.5 (auto: a process started in 589 ms on this machine, a timer fired 4 ms late; ' +
        'every lease, timeout and delay stretched ×1.5)\n',
    );
  });

  it.each([
    ['the scale 1 given: nothing, as before', 1, null, null],
    ['a scale given', 2, null, ' · time scale ×2 (given; every lease, timeout and delay stretched ×2)'],
    [
      'the scale 1 chosen by auto',
      1,
      { startupMs: 113, timerLatenessMs: 2, scale: 1 },
      ' · time scale ×1 (auto: this machine was quiet: a process started in 113 ms',
    ],
  ])('says the time scale for %s', (_, timeScale, calibration, expected) => {
    const text = renderStepSummary({ ...passingReport(), timeScale, calibration });
    if (expected === null) expect(text).not.toContain('time scale');
    else expect(text).toContain(expected);
  });

  it('names the scenario that passed only when run again, with the attempt the machine starved', () => {
    expect(summary).toContain(
      '**Passed only when run again** (the machine starved the earlier attempts):\n\n- ✅ `slow_machine` passed at ×3, after ⏳ inconclusive at ×1.5\n',
    );
    expect(renderStepSummary(passingReport())).not.toContain('run again');
  });

  it('says which attempt a scenario that still did not pass is on', () => {
    const still = inconclusiveReport();
    still.scenarios[1]!.earlierAttempts = [...retriedReport().scenarios[1]!.earlierAttempts!];
    expect(renderStepSummary(still)).toMatch(/^- ⏳ `slow_machine` inconclusive \(attempt 2, at ×2\): the machine starved the drill/m);
  });
});
