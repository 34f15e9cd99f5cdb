import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/junit.js';
import type { DrillReport } from '../../src/report/schema.js';
import {
  drillReport,
  EARLIER_INCONCLUSIVE_LINE,
  EARLIER_RUN_DIR,
  HOSTILE_EVIDENCE,
  INCONCLUSIVE_LINES,
  INTERRUPTED_LINE,
  inconclusiveReport,
  interruptedReport,
  NEEDS_HISTORY,
  NO_HISTORY_NOTE,
  NOTHING_JUDGED_LINE,
  nothingJudgedReport,
  notJudgedReport,
  passingReport,
  retriedReport,
} from './fixture.js';
import { findAll, parseXml, type XmlElement, XmlError } from './xml-check.js';

/** Python's expat, a real and strict XML parser (python3 is already a test prerequisite): null when well-formed, else its complaint. */
function expatComplaint(xml: string): string | null {
  try {
    execFileSync('python3', ['-I', '-c', 'import sys, xml.etree.ElementTree as ET; ET.fromstring(sys.stdin.buffer.read())'], {
      input: Buffer.from(xml, 'utf8'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return null;
  } catch (error) {
    return (
      String((error as { stderr?: Buffer }).stderr ?? error)
        .trim()
        .split('\n')
        .at(-1) ?? 'failed'
    );
  }
}

/** How a testcase came out: failure, error, skipped, or passed (its <system-out> is output, not an outcome). */
function outcomeOf(testcase: XmlElement): string {
  return testcase.children.find((child) => child.name !== 'system-out')?.name ?? 'passed';
}

describe('the XML checker used by these tests', () => {
  // A checker that cannot fail proves nothing: each of these must be refused.
  it.each([
    ['unbalanced tags', '<a><b></a>'],
    ['an unclosed root', '<a><b/>'],
    ['a bare ampersand', '<a>fish & chips</a>'],
    ['an unknown entity', '<a>&nbsp;</a>'],
    ['a raw < in an attribute', '<a x="1 < 2"/>'],
    ['an unquoted attribute', '<a x=1/>'],
    ['a duplicate attribute', '<a x="1" x="2"/>'],
    ['a forbidden control character', '<a>\u001b[31m</a>'],
    ['a character reference to a forbidden character', '<a>&#27;</a>'],
    [']]> in text', '<a>]]></a>'],
    ['two roots', '<a/><b/>'],
  ])('refuses %s', (_why, xml) => {
    expect(() => parseXml(xml)).toThrow(XmlError);
    expect(expatComplaint(xml)).not.toBeNull();
  });

  it('accepts what is well-formed and decodes entities', () => {
    const root = parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a x="&quot;1&quot; &amp; &#10;2"><b>&lt;c&gt; &#x41;</b><!-- note --></a>');
    expect(root.attributes.x).toBe('"1" & \n2');
    expect(root.children[0]!.text).toBe('<c> A');
  });
});

/** The counts a suite or the whole says of itself. */
function countsOf(element: XmlElement): Record<string, string | undefined> {
  const { tests, failures, errors, skipped } = element.attributes;
  return { tests, failures, errors, skipped };
}

/** The counts the testcases under an element actually make. */
function countedCases(element: XmlElement): Record<string, string> {
  const outcomes = findAll(element, 'testcase').map(outcomeOf);
  const of = (kind: string) => String(outcomes.filter((o) => o === kind).length);
  return { tests: String(outcomes.length), failures: of('failure'), errors: of('error'), skipped: of('skipped') };
}

/** The testcase named `name`. */
function caseNamed(root: XmlElement, name: string): XmlElement {
  const found = findAll(root, 'testcase').find((c) => c.attributes.name === name);
  if (!found) throw new Error(`no testcase ${name}`);
  return found;
}

/** The outcome element of a testcase (failure, error, skipped), or undefined when it passed. */
function outcomeElement(testcase: XmlElement): XmlElement | undefined {
  return testcase.children.find((c) => c.name !== 'system-out');
}

describe('renderJunit: a test per scenario run, so a dashboard counts what a person asks', () => {
  const report = drillReport();
  const xml = renderJunit(report);
  const root = parseXml(xml);
  const suites = findAll(root, 'testsuite');

  it('is well-formed XML, for this checker and for expat', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    expect(expatComplaint(xml)).toBeNull();
    expect(root.name).toBe('testsuites');
  });

  it('has one testsuite per queue and one testcase per scenario run, classname the queue, name the scenario', () => {
    expect(suites.map((s) => s.attributes.name)).toEqual(['reference']);
    const cases = findAll(suites[0]!, 'testcase');
    expect(cases.map((c) => c.attributes.name)).toEqual(report.scenarios.map((s) => s.name));
    for (const testcase of cases) expect(testcase.attributes.classname).toBe('reference');
    const properties = Object.fromEntries(findAll(suites[0]!, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(properties).toEqual({ queue: 'reference', seed: '42', command: report.command, file: 'scenarios.yaml', 'time-scale': '1 (given)' });
  });

  it('gives each case its scenario verdict: pass passed, fail and vacuous failures, a harness error an error; nothing skipped', () => {
    const outcomes = findAll(suites[0]!, 'testcase').map((c) => [c.attributes.name, outcomeOf(c), outcomeElement(c)?.attributes.type]);
    expect(outcomes).toEqual([
      ['crash_after_write', 'passed', undefined],
      ['timeout_blind_retry', 'failure', 'invariant'],
      ['crash_after_verify', 'failure', 'vacuous'],
      ['world_unreachable', 'error', 'harness'],
    ]);
  });

  it('counts tests, failures, errors and skipped on every suite and on the whole, matching the testcases, times adding up', () => {
    for (const element of [root, ...suites]) expect(countsOf(element)).toEqual(countedCases(element));
    expect(countsOf(root)).toEqual({ tests: '4', failures: '2', errors: '1', skipped: '0' });
    const suite = suites[0]!;
    const sum = findAll(suite, 'testcase').reduce((total, c) => total + Number(c.attributes.time), 0);
    expect(sum.toFixed(3)).toBe(suite.attributes.time);
    expect(findAll(suite, 'testcase').map((c) => c.attributes.time)).toEqual(['3.413', '5.120', '2.200', '5.003']);
  });

  it('fails a broken scenario with a one-line message naming what broke, and every finding and the replay in its body', () => {
    const failure = outcomeElement(caseNamed(root, 'timeout_blind_retry'))!;
    expect(failure.name).toBe('failure');
    expect(failure.attributes.message).not.toMatch(/[\r\n]/);
    expect(failure.attributes.message).toMatch(
      /^broke no-duplicate-effect, review-routing: ledger: charge key=ab12cd34:charge applied by w1#1 and w1#2 <both> & "twice" ]]> /,
    );
    expect(failure.text).toContain('no-duplicate-effect: no non-idempotent effect is applied twice for one key');
    expect(failure.text).toContain('\n  job 1 is done with charge applied 2 times');
    expect(failure.text).toContain('review-routing: ');
    expect(failure.text).toContain(
      'jobs that did not end as expected:\n  job 1 (ab12cd34ef56ab78): expected review matching /unknown outcome/, ended done',
    );
    expect(failure.text).toContain(`replay: ${report.scenarios[1]!.replay}`);
  });

  it('fails on a job that ended wrong when no invariant broke, as an expectation', () => {
    const wrongEnd = drillReport();
    const scenario = wrongEnd.scenarios[1]!;
    scenario.invariants = scenario.invariants.map((v) => (v.status === 'broken' ? { ...v, status: 'held', evidence: [] } : v));
    wrongEnd.summary.invariants = { ...wrongEnd.summary.invariants, held: wrongEnd.summary.invariants.held + 2, broken: 0 };
    const failure = outcomeElement(caseNamed(parseXml(renderJunit(wrongEnd)), 'timeout_blind_retry'))!;
    expect(failure.attributes).toMatchObject({
      type: 'expectation',
      message: '1 of 1 jobs did not end as expected: job 1 (ab12cd34ef56ab78): expected review matching /unknown outcome/, ended done',
    });
  });

  it('replaces control characters XML 1.0 forbids, and unpaired surrogates, instead of writing a file CI rejects', () => {
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\uFFFE\uFFFF]/);
    expect(xml).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(outcomeElement(caseNamed(root, 'timeout_blind_retry'))!.text).toContain('\\x1B[31mred\\x1B[0m nul:\\x00 lone:\uFFFD | `tick`');
    expect(HOSTILE_EVIDENCE).toContain('\u0000');
  });

  it('fails a vacuous scenario: a fault that never fired, or an invariant with nothing to judge where it should have had something', () => {
    const unfired = outcomeElement(caseNamed(root, 'crash_after_verify'))!;
    expect(unfired.attributes.message).toMatch(/^vacuous: crash at after_verify \(rule kill-after-verify, worker=w9\) never fired/);
    expect(unfired.text).toContain('faults that never fired:\n  crash at after_verify');
    const nothing = outcomeElement(findAll(parseXml(renderJunit(nothingJudgedReport())), 'testcase')[0]!)!;
    expect(nothing.attributes.type).toBe('vacuous');
    // One line, cut for CI views; the body has it whole.
    expect(nothing.attributes.message).toBe(`${`vacuous: ${NOTHING_JUDGED_LINE}`.slice(0, 239)}…`);
    expect(nothing.text).toContain(`nothing to judge where there should have been:\n  ${NOTHING_JUDGED_LINE}\n\nreplay: `);
  });

  it('reports a harness failure as an <error>', () => {
    const error = outcomeElement(caseNamed(root, 'world_unreachable'))!;
    expect(error.name).toBe('error');
    expect(error.attributes.message).toBe(
      'the harness failed: QD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms its log ends: EADDRINUSE',
    );
    expect(error.text).toContain('QD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms\nits log ends: EADDRINUSE');
  });

  it('passes an invariant that held with nothing to judge, and says so in the scenario’s output, not as a skipped test', () => {
    expect(xml).not.toContain('<skipped');
    const out = findAll(caseNamed(root, 'crash_after_write'), 'system-out')[0]!.text;
    expect(out).toContain('  saga-compensation: held, nothing to judge: no saga was compensated in this drill');
  });

  it("summarises each scenario in its case's output: description, verdict, faults with their limits, jobs, recovery, replay", () => {
    const out = findAll(caseNamed(root, 'crash_after_write'), 'system-out')[0]!.text;
    expect(out.split('\n')).toEqual(
      expect.arrayContaining([
        report.scenarios[0]!.description,
        'verdict: pass',
        `invariants: 0 broken, ${report.scenarios[0]!.invariants.length - 1} held`,
        'fault kill-after-write: crash at after_write (worker=w1, attempt=1, first 1 hit): fired 1 of 1 hits',
        'jobs 1: expected done, ended done; 2 of 5 attempts',
        'recovery: w1#1 killed at after_write, job 1: taken back after 1100 ms, settled after 1400 ms',
        `replay: ${report.scenarios[0]!.replay}`,
      ]),
    );
    // A passing scenario's timeline is in report.html; one that did not pass carries what happened.
    expect(out).not.toContain('timeline');
    const failing = findAll(caseNamed(root, 'timeout_blind_retry'), 'system-out')[0]!.text;
    expect(failing).toContain(
      'timeline (fault points passed with nothing happening, and processes becoming ready, left out):\n2026-08-25T10:00:00.000Z world-fault-armed',
    );
  });

  it('keeps hostile names and newlines intact through attributes', () => {
    const hostile = passingReport();
    hostile.scenarios[0]!.name = `a "quoted" <name> & 'more'\twith tab`;
    hostile.scenarios[0]!.replay = 'queue-drill drill --only "a\nb"';
    const out = renderJunit(hostile);
    expect(expatComplaint(out)).toBeNull();
    const testcase = findAll(parseXml(out), 'testcase')[0]!;
    expect(testcase.attributes.name).toBe(hostile.scenarios[0]!.name);
    expect(findAll(testcase, 'system-out')[0]!.text).toContain('replay: queue-drill drill --only "a\nb"');
  });

  it('passes every testcase of a passing report, and skips none', () => {
    const cases = findAll(parseXml(renderJunit(passingReport())), 'testcase');
    expect(cases.map(outcomeOf)).toEqual(['passed']);
  });
});

describe('renderJunit, when the queue could not give some evidence', () => {
  const report = notJudgedReport();
  const xml = renderJunit(report);
  const root = parseXml(xml);
  const cases = findAll(root, 'testcase');

  it('passes the scenario, and skips one case per invariant not judged, saying why: a check that was not performed', () => {
    expect(expatComplaint(xml)).toBeNull();
    expect(outcomeOf(cases[0]!)).toBe('passed');
    expect(cases[0]!.attributes.name).toBe('crash_after_write');
    const skipped = cases.slice(1);
    expect(skipped.map((c) => c.attributes.name)).toEqual(NEEDS_HISTORY.map((id) => `crash_after_write: ${id}`));
    for (const testcase of skipped) {
      expect(testcase.children).toHaveLength(1);
      expect(testcase.children[0]).toMatchObject({ name: 'skipped', attributes: { message: `not judged: ${NO_HISTORY_NOTE}` } });
    }
  });

  it("counts them in the suite's and the whole's skipped, with no failure", () => {
    const counts = { tests: String(1 + NEEDS_HISTORY.length), failures: '0', errors: '0', skipped: String(NEEDS_HISTORY.length) };
    expect(countsOf(findAll(root, 'testsuite')[0]!)).toEqual(counts);
    expect(countsOf(root)).toEqual(counts);
  });

  it('keeps a multi-line or hostile reason on one line of a well-formed attribute', () => {
    const hostile = notJudgedReport();
    const verdict = hostile.scenarios[0]!.invariants.find((v) => v.status === 'not_judged')!;
    verdict.note = 'needs history <&> "quoted"\nsecond line \u001b[0m';
    const out = renderJunit(hostile);
    expect(expatComplaint(out)).toBeNull();
    expect(outcomeElement(caseNamed(parseXml(out), `crash_after_write: ${verdict.id}`))).toMatchObject({
      name: 'skipped',
      attributes: { message: 'not judged: needs history <&> "quoted" second line \\x1B[0m' },
    });
  });
});

describe('renderJunit, for an interrupted drill', () => {
  const xml = renderJunit(interruptedReport());
  const root = parseXml(xml);

  it('errs the scenario stopped before rest as interrupted, claiming nothing broken, and skips none of its invariants', () => {
    expect(expatComplaint(xml)).toBeNull();
    const error = outcomeElement(caseNamed(root, 'zombie_worker'))!;
    expect(error.name).toBe('error');
    expect(error.attributes).toMatchObject({ type: 'interrupted', message: `interrupted, not judged: ${INTERRUPTED_LINE}` });
    expect(xml).not.toContain('<failure');
    expect(xml).not.toMatch(/name="zombie_worker: /);
  });

  it('skips each run never started, saying the drill was interrupted first, and counts them', () => {
    for (const name of ['crash_after_verify', 'world_unreachable']) {
      expect(outcomeElement(caseNamed(root, name))).toMatchObject({
        name: 'skipped',
        attributes: { message: 'never started: the drill was interrupted by SIGINT first' },
      });
    }
    expect(countsOf(root)).toEqual({ tests: '4', failures: '0', errors: '1', skipped: '2' });
    const properties = Object.fromEntries(findAll(root, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(properties.interruptedBy).toBe('SIGINT');
  });
});

describe('renderJunit, for a drill on a starved machine', () => {
  const xml = renderJunit(inconclusiveReport());
  const root = parseXml(xml);

  it('errs the inconclusive scenario (type inconclusive), not a failure: the machine starved it, the queue did not fail it', () => {
    expect(expatComplaint(xml)).toBeNull();
    expect(countsOf(root)).toEqual({ tests: '2', failures: '0', errors: '1', skipped: '0' });
    for (const suite of findAll(root, 'testsuite')) expect(countsOf(suite)).toEqual(countedCases(suite));
    expect(outcomeOf(caseNamed(root, 'crash_after_write'))).toBe('passed');
    const error = outcomeElement(caseNamed(root, 'slow_machine'))!;
    expect(error.name).toBe('error');
    expect(error.attributes.type).toBe('inconclusive');
    expect(error.attributes.message).toMatch(/^inconclusive, the machine starved the drill: no-lost-job: the drill stopped before rest/);
    expect(error.attributes.message).not.toMatch(/[\r\n]/);
  });

  it('gives every line starvation explains, naming the starved process and span, the starvation, the findings and the replay in its body', () => {
    const error = outcomeElement(caseNamed(root, 'slow_machine'))!;
    for (const line of INCONCLUSIVE_LINES) expect(error.text).toContain(`  ${line}\n`);
    expect(error.text).toContain('starvation: 3 starved spans, 710 ms in all; worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010)');
    expect(error.text).toContain('no-lost-job: every accepted job ends done or in review');
    expect(error.text).toMatch(/\n\nreplay: queue-drill drill scenarios\.yaml --only slow_machine /);
  });

  it("says how much the machine starved a scenario and its time scale in the scenario's output", () => {
    const out = caseNamed(root, 'slow_machine').children.find((c) => c.name === 'system-out')!.text;
    expect(out).toContain('verdict: inconclusive\n');
    expect(out).toContain('\nstarvation: 3 starved spans, 710 ms in all; worst span w1#2 510 ms');
    expect(out).toContain('\ntime scale: every duration ×2\n');
    expect(out).toContain('job 1: taken back after 1100 ms, never settled');
    expect(out).toMatch(/starved +w1#2 +w1#2 was not run for 510 ms/);
    const passing = caseNamed(root, 'crash_after_write').children.find((c) => c.name === 'system-out')!.text;
    expect(passing).not.toMatch(/starvation|time scale/);
  });
});

describe('renderJunit, against a baseline', () => {
  const withBaseline = (regressions: NonNullable<DrillReport['baseline']>['regressions']): XmlElement => {
    const report = passingReport();
    report.baseline = {
      baseline: '/runs/old/report.json',
      tolerance: { ratio: 1.5, slackMs: 500 },
      regressions,
      improvements: [],
      added: [],
      missing: [],
    };
    if (regressions.length > 0) report.exitCode = 1;
    return findAll(parseXml(renderJunit(report)), 'testsuite').find((s) => s.attributes.name === 'against the baseline')!;
  };

  it('adds a suite with a failing case per regression', () => {
    const suite = withBaseline([
      { scenario: 'crash_after_write', kind: 'now-fails', detail: 'passed in the baseline, fail now' },
      { scenario: 'crash_after_write', kind: 'slower-recovery', detail: 'recovery 1.4 s → 3.1 s' },
    ]);
    const cases = findAll(suite, 'testcase');
    expect(cases.map((c) => [c.attributes.name, outcomeOf(c), c.children[0]!.attributes.type])).toEqual([
      ['crash_after_write: now-fails', 'failure', 'regression'],
      ['crash_after_write: slower-recovery', 'failure', 'regression'],
    ]);
    expect(cases[0]!.children[0]!.text).toContain('baseline: /runs/old/report.json');
  });

  it('passes one case when nothing regressed', () => {
    const cases = findAll(withBaseline([]), 'testcase');
    expect(cases.map((c) => [c.attributes.name, outcomeOf(c)])).toEqual([['no regression', 'passed']]);
  });
});

describe('renderJunit, of a drill that chose its time scale and ran a starved scenario again', () => {
  const xml = renderJunit(retriedReport());
  const root = parseXml(xml);
  const propertiesOf = (report: DrillReport) =>
    findAll(parseXml(renderJunit(report)), 'testsuite').map((suite) =>
      Object.fromEntries(findAll(suite, 'property').map((p) => [p.attributes.name, p.attributes.value])),
    );

  it('says the time scale and how it was chosen in a property of its suite', () => {
    expect(expatComplaint(xml)).toBeNull();
    expect(propertiesOf(retriedReport()).map((p) => p['time-scale'])).toEqual(['1.5 (auto: start 589 ms, timer 4 ms late)']);
  });

  it.each([
    ['the scale 1 given', { timeScale: 1, calibration: null }, '1 (given)'],
    ['a report with no calibration', { timeScale: 2 }, '2 (given)'],
    [
      'the scale 1 chosen by auto',
      { timeScale: 1, calibration: { startupMs: 113, timerLatenessMs: 2, scale: 1 } },
      '1 (auto, a quiet machine: start 113 ms, timer 2 ms late)',
    ],
  ])('says it for %s', (_, scale, expected) => {
    expect(propertiesOf({ ...drillReport(), ...scale }).map((p) => p['time-scale'])).toEqual([expected]);
  });

  it("lists each earlier attempt in the testcase's output, before this run's verdict, escaped", () => {
    expect(xml).toContain('&lt;i&gt;"starved"&lt;/i&gt; &amp; *]]&gt;');
    expect(xml).not.toContain('<i>');
    const out = caseNamed(root, 'slow_machine').children.find((c) => c.name === 'system-out')!.text;
    expect(out.split('\n').slice(0, 3)).toEqual([
      'attempts (the machine starved each earlier one; it ran again at twice its time scale):',
      `  attempt 1 of 2: inconclusive at time scale ×1.5, 8.4 s, run directory ${EARLIER_RUN_DIR}: ${EARLIER_INCONCLUSIVE_LINE}`,
      '  attempt 2 of 2 (this run): pass at time scale ×3',
    ]);
    expect(out.indexOf('attempt 1 of 2')).toBeLessThan(out.indexOf('verdict: pass'));
    expect(outcomeOf(caseNamed(root, 'slow_machine'))).toBe('passed');
    const once = caseNamed(root, 'crash_after_write').children.find((c) => c.name === 'system-out')!.text;
    expect(once).not.toContain('attempt 1');
  });
});
