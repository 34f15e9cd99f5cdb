import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressPrinter, scenarioLine } from '../../src/cli/progress.js';
import type { DrillReport } from '../../src/report/schema.js';
import type { WrittenReport } from '../../src/report/write-report.js';
import {
  drillReport,
  INCONCLUSIVE_LINES,
  INTERRUPTED_LINE,
  inconclusiveReport,
  interruptedReport,
  NEEDS_HISTORY,
  NOTHING_JUDGED_LINE,
  nothingJudgedReport,
  notJudgedReport,
  passingReport,
  STARVED_SPAN,
} from './fixture.js';

const WRITTEN: WrittenReport = {
  json: '/runs/r/report.json',
  markdown: '/runs/r/report.md',
  junit: '/runs/r/junit.xml',
  html: '/runs/r/report.html',
};

/** Everything a printer writes, as one string. */
function captured(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

function summaryOf(report: DrillReport): string {
  const out = captured();
  progressPrinter(out.stream, { live: false }).summary(report, WRITTEN);
  return out.text();
}

describe('the progress lines', () => {
  it('a scenario line says how many invariants were not judged, and still says PASS', () => {
    const [scenario] = notJudgedReport().scenarios;
    const line = scenarioLine(scenario!, 1, 1);
    expect(line).toBe(`[1/1] PASS    crash_after_write  3.4s  faults 1/1 fired  jobs: 1 done  ${NEEDS_HISTORY.length} not judged`);
  });

  it('a scenario line says nothing of it when every invariant was judged', () => {
    expect(scenarioLine(passingReport().scenarios[0]!, 1, 1)).toBe('[1/1] PASS    crash_after_write  3.4s  faults 1/1 fired  jobs: 1 done');
    const failing = scenarioLine(drillReport().scenarios[1]!, 2, 4);
    expect(failing).toMatch(
      /^\[2\/4\] FAIL {4}timeout_blind_retry {2}5\.1s {2}faults 1\/1 fired {2}jobs: 1 done\n {8}broke: no-duplicate-effect, review-routing\n/,
    );
    expect(failing).not.toContain('not judged');
  });

  it('a vacuous scenario line says which invariant had nothing to judge, and how to replay it', () => {
    const line = scenarioLine(nothingJudgedReport().scenarios[0]!, 1, 1);
    expect(line).toBe(
      `[1/1] VACUOUS concurrent_enqueue  3.4s  faults 1/1 fired  jobs: 1 done\n        ${NOTHING_JUDGED_LINE}\n        replay: ` +
        'queue-drill drill scenarios.yaml --only concurrent_enqueue --seed 42 --queue reference',
    );
  });

  it.each([
    {
      report: 'some invariants not judged',
      make: notJudgedReport,
      tail: `; ${NEEDS_HISTORY.length} invariant verdicts not judged (the queue cannot give their evidence)`,
    },
    { report: 'every invariant judged', make: passingReport, tail: '' },
  ])('the summary line with $report', ({ make, tail }) => {
    expect(summaryOf(make())).toBe(
      `\n1/1 passed, 0 failed, 0 vacuous, 0 errors in 15.7s (seed 42)${tail}\nreport: ${WRITTEN.json}\n        ${WRITTEN.markdown}\n        ${WRITTEN.junit}\n        ${WRITTEN.html}\n`,
    );
  });

  it('an interrupted scenario line says so, where its jobs stood, and claims nothing broken', () => {
    const line = scenarioLine(interruptedReport().scenarios[1]!, 2, 4);
    expect(line).toBe(
      `[2/4] INTERRUPTED zombie_worker  2.1s  faults 1/2 fired  jobs: 1 running when stopped\n        not judged: ${INTERRUPTED_LINE}\n        replay: ` +
        'queue-drill drill scenarios.yaml --only zombie_worker --seed 42 --queue reference',
    );
  });

  it('the summary of an interrupted drill says by what, and counts the runs interrupted and never started among all it had to do', () => {
    expect(summaryOf(interruptedReport())).toBe(
      '\ninterrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started\n' +
        // The interrupted scenario's invariants are not judged for the interruption, not for want of evidence: no tail for them.
        `1/4 passed, 0 failed, 0 vacuous, 1 interrupted, 2 never started, 0 errors in 15.7s (seed 42)\nreport: ${WRITTEN.json}\n` +
        `        ${WRITTEN.markdown}\n        ${WRITTEN.junit}\n        ${WRITTEN.html}\n`,
    );
  });

  it('counts no invariant of a scenario the queue cannot run as one it could not give evidence for: its own count says why', () => {
    const report = notJudgedReport();
    const scenario = report.scenarios[0]!;
    report.scenarios[0] = { ...scenario, verdict: 'not_supported', notSupported: 'the queue has no server the harness can restart' };
    report.summary = { ...report.summary, passed: 0, notSupported: 1 };
    expect(summaryOf(report)).toMatch(/^\n0\/1 passed, 0 failed, 0 vacuous, 1 not supported, 0 errors in 15\.7s \(seed 42\)\nreport: /);
  });

  it('prints one line per finished scenario, and the summary, with no live line off a terminal', () => {
    const report = notJudgedReport();
    const out = captured();
    const printer = progressPrinter(out.stream, { live: false });
    printer.onScenario({ phase: 'start', name: 'crash_after_write', index: 1, total: 1 });
    printer.onScenario({ phase: 'done', report: report.scenarios[0]!, index: 1, total: 1 });
    printer.summary(report, WRITTEN);
    const text = out.text();
    expect(text).not.toMatch(/running|\r|\x1b/);
    expect(text.split('\n')[0]).toMatch(/^\[1\/1\] PASS .* \d+ not judged$/);
    expect(text).toContain('invariant verdicts not judged (the queue cannot give their evidence)\n');
  });
});

describe('the progress lines of a drill on a starved machine', () => {
  it('an inconclusive scenario line says so, its worst starved span, each line starvation explains, and how to replay it', () => {
    const line = scenarioLine(inconclusiveReport().scenarios[1]!, 2, 2);
    expect(line).toBe(
      '[2/2] INCONCLUSIVE slow_machine  8.4s  faults 1/1 fired  jobs: 1 running  time ×2\n' +
        '        inconclusive, the machine starved the drill: worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010); ' +
        'run it again on a quieter machine, at a larger --time-scale, or with --retry-inconclusive\n' +
        `        ${INCONCLUSIVE_LINES[0]}\n        ${INCONCLUSIVE_LINES[1]}\n` +
        '        replay: queue-drill drill scenarios.yaml --only slow_machine --seed 42 --queue reference',
    );
    // Not a failure: nothing is said to have broken.
    expect(line).not.toContain('broke:');
  });

  it('a passing scenario line says how long its worst starved span was, and nothing when none', () => {
    const scenario = { ...passingReport().scenarios[0]!, starvation: { spans: [STARVED_SPAN], totalMs: 510, worst: STARVED_SPAN } };
    expect(scenarioLine(scenario, 1, 1)).toBe('[1/1] PASS    crash_after_write  3.4s  faults 1/1 fired  jobs: 1 done  starved 510 ms (w1#2)');
    expect(scenarioLine(passingReport().scenarios[0]!, 1, 1)).not.toContain('starved');
  });

  it('the summary counts the inconclusive scenario apart, then says in one line how the machine starved the drill and what to do', () => {
    expect(summaryOf(inconclusiveReport())).toBe(
      '\n1/2 passed, 0 failed, 0 vacuous, 1 inconclusive (starved), 0 errors in 15.7s (seed 42)\n' +
        'the machine starved the drill: worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010) in slow_machine; ' +
        '1 inconclusive: run it again on a quieter machine, at a larger --time-scale, or with --retry-inconclusive\n' +
        `report: ${WRITTEN.json}\n        ${WRITTEN.markdown}\n        ${WRITTEN.junit}\n        ${WRITTEN.html}\n`,
    );
  });

  it('the summary of a passing drill the machine starved says so in one line, with no advice to run it again', () => {
    const report = passingReport();
    report.scenarios[0]!.starvation = { spans: [STARVED_SPAN], totalMs: 510, worst: STARVED_SPAN };
    const lines = summaryOf(report).split('\n');
    expect(lines[1]).toBe('1/1 passed, 0 failed, 0 vacuous, 0 errors in 15.7s (seed 42)');
    expect(lines[2]).toBe('the machine starved the drill: worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010) in crash_after_write');
  });
});
