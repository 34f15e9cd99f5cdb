import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { JUNIT_CASES, renderJunit } from '../../src/report/junit.js';
import { INVARIANT_IDS } from '../../src/scenarios/evidence.js';
import {
  drillReport,
  HOSTILE_EVIDENCE,
  NEEDS_HISTORY,
  NO_HISTORY_NOTE,
  NOTHING_JUDGED_LINE,
  nothingJudgedReport,
  notJudgedReport,
  passingReport,
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

function outcomeOf(testcase: XmlElement): string {
  return testcase.children[0]?.name ?? 'passed';
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

describe('renderJunit', () => {
  const report = drillReport();
  const xml = renderJunit(report);
  const root = parseXml(xml);
  const suites = findAll(root, 'testsuite');

  it('is well-formed XML, for this checker and for expat', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    expect(expatComplaint(xml)).toBeNull();
    expect(root.name).toBe('testsuites');
  });

  it('has one testsuite per scenario, one testcase per invariant plus "expected outcome", "faults fired" and "something judged"', () => {
    expect(suites.map((s) => s.attributes.name)).toEqual(['crash_after_write', 'timeout_blind_retry', 'crash_after_verify', 'world_unreachable']);
    for (const [index, suite] of suites.entries()) {
      const scenario = report.scenarios[index]!;
      const cases = findAll(suite, 'testcase');
      expect(cases.map((c) => c.attributes.name)).toEqual([
        ...scenario.invariants.map((v) => v.id),
        JUNIT_CASES.outcome,
        JUNIT_CASES.faults,
        JUNIT_CASES.judged,
      ]);
      for (const testcase of cases) expect(testcase.attributes.classname).toBe(scenario.name);
    }
    expect(
      findAll(suites[0]!, 'testcase')
        .slice(0, INVARIANT_IDS.length)
        .map((c) => c.attributes.name),
    ).toEqual([...INVARIANT_IDS]);
  });

  it('counts tests, failures, errors and skipped on every suite and on the whole, matching the testcases', () => {
    const expected = [
      // Each invariant, the faults, the expectations, and whether something was judged.
      { tests: String(INVARIANT_IDS.length + 3), failures: '0', errors: '0', skipped: '1', time: '3.413' },
      { tests: String(INVARIANT_IDS.length + 3), failures: '3', errors: '0', skipped: '1', time: '5.120' },
      { tests: String(INVARIANT_IDS.length + 3), failures: '1', errors: '0', skipped: '1', time: '2.200' },
      { tests: '3', failures: '0', errors: '1', skipped: '2', time: '5.003' },
    ];
    expect(suites.map(({ attributes: { tests, failures, errors, skipped, time } }) => ({ tests, failures, errors, skipped, time }))).toEqual(
      expected,
    );
    for (const suite of suites) {
      const outcomes = findAll(suite, 'testcase').map(outcomeOf);
      expect(String(outcomes.length)).toBe(suite.attributes.tests);
      expect(String(outcomes.filter((o) => o === 'failure').length)).toBe(suite.attributes.failures);
      expect(String(outcomes.filter((o) => o === 'error').length)).toBe(suite.attributes.errors);
      expect(String(outcomes.filter((o) => o === 'skipped').length)).toBe(suite.attributes.skipped);
      // The drill's time is on "expected outcome", so testcase times add up to the suite's.
      const sum = findAll(suite, 'testcase').reduce((total, c) => total + Number(c.attributes.time), 0);
      expect(sum.toFixed(3)).toBe(suite.attributes.time);
    }
    expect(root.attributes).toMatchObject({
      name: 'queue-drill',
      tests: String(3 * (INVARIANT_IDS.length + 3) + 3),
      failures: '4',
      errors: '1',
      skipped: '5',
      time: '15.735',
    });
  });

  it('fails a broken invariant with a one-line message and every evidence line in its body', () => {
    const broken = findAll(suites[1]!, 'testcase').find((c) => c.attributes.name === 'no-duplicate-effect')!;
    const failure = broken.children[0]!;
    expect(failure.name).toBe('failure');
    expect(failure.attributes.type).toBe('invariant');
    expect(failure.attributes.message).not.toMatch(/[\r\n]/);
    expect(failure.attributes.message).toMatch(
      /^ledger: charge key=ab12cd34:charge applied by w1#1 and w1#2 <both> & "twice" ]]> .* \(and 1 more\)$/,
    );
    expect(failure.text).toContain('no non-idempotent effect is applied twice for one key');
    expect(failure.text).toContain('\njob 1 is done with charge applied 2 times');
    expect(failure.text).toContain('<both> & "twice" ]]>');
  });

  it('replaces control characters XML 1.0 forbids, and unpaired surrogates, instead of writing a file CI rejects', () => {
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\uFFFE\uFFFF]/);
    expect(xml).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    const body = findAll(suites[1]!, 'failure')[0]!.text;
    expect(body).toContain('\\x1B[31mred\\x1B[0m nul:\\x00 lone:\uFFFD | `tick`');
    expect(HOSTILE_EVIDENCE).toContain('\u0000');
  });

  it('fails "expected outcome" for a job that ended wrong, and "faults fired" for a fault that never fired', () => {
    const outcome = findAll(suites[1]!, 'testcase').find((c) => c.attributes.name === JUNIT_CASES.outcome)!;
    expect(outcome.children[0]!.attributes).toMatchObject({
      type: 'expectation',
      message: '1 of 1 jobs did not end as expected: job 1 (ab12cd34ef56ab78): expected review matching /unknown outcome/, ended done',
    });
    expect(outcome.children[0]!.text).toContain('replay: queue-drill drill scenarios.yaml --only timeout_blind_retry');
    const faults = findAll(suites[2]!, 'testcase').find((c) => c.attributes.name === JUNIT_CASES.faults)!;
    expect(faults.children[0]!.name).toBe('failure');
    expect(faults.children[0]!.attributes.type).toBe('vacuous');
    expect(faults.children[0]!.attributes.message).toMatch(/^1 armed fault never fired: crash at after_verify/);
  });

  it('passes "something judged" when every invariant the scenario had to give something had something', () => {
    expect(findAll(suites[0]!, 'testcase').find((c) => c.attributes.name === JUNIT_CASES.judged)!.children).toEqual([]);
  });

  it('fails "something judged" as vacuous for an invariant that had nothing to judge where the scenario should have given it something', () => {
    const vacuousRoot = parseXml(renderJunit(nothingJudgedReport()));
    const cases = findAll(vacuousRoot, 'testcase');
    const judged = cases.find((c) => c.attributes.name === JUNIT_CASES.judged)!.children[0]!;
    expect(judged.name).toBe('failure');
    expect(judged.attributes.type).toBe('vacuous');
    // One line, cut for CI views; the body has it whole.
    expect(judged.attributes.message).toBe(`${`1 invariant had nothing to judge: ${NOTHING_JUDGED_LINE}`.slice(0, 239)}…`);
    expect(judged.text).toContain(`${NOTHING_JUDGED_LINE}\n\nreplay: `);
    // Its own testcase says it had nothing to judge.
    expect(cases.find((c) => c.attributes.name === 'dedupe-on-enqueue')!.children[0]!.attributes.message).toBe(
      "nothing to judge: no key had two producers' enqueue calls in flight at once: nothing raced",
    );
  });

  it('reports a harness failure as an <error>, and does not judge its faults', () => {
    const cases = findAll(suites[3]!, 'testcase');
    const error = cases.find((c) => c.attributes.name === JUNIT_CASES.outcome)!.children[0]!;
    expect(error.name).toBe('error');
    expect(error.attributes.message).toBe(
      'the harness failed: QD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms its log ends: EADDRINUSE',
    );
    expect(error.text).toContain('QD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms\nits log ends: EADDRINUSE');
    for (const name of [JUNIT_CASES.faults, JUNIT_CASES.judged]) {
      expect(cases.find((c) => c.attributes.name === name)!.children[0]).toMatchObject({
        name: 'skipped',
        attributes: { message: 'not judged: the harness failed' },
      });
    }
  });

  it('carries the replay command and seed as properties, and the timeline in system-out', () => {
    const properties = Object.fromEntries(findAll(suites[1]!, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(properties).toMatchObject({
      verdict: 'fail',
      seed: '42',
      queue: 'reference',
      queueVersion: 'reference 0.1.0 (sqlite)',
      replay: report.scenarios[1]!.replay,
    });
    expect(findAll(suites[0]!, 'system-out')[0]!.text).toContain('2026-08-25T10:00:00.300Z kill w1#1 SIGKILL');
  });

  it('keeps hostile names and newlines intact through attributes', () => {
    const hostile = passingReport();
    hostile.scenarios[0]!.name = `a "quoted" <name> & 'more'\twith tab`;
    hostile.scenarios[0]!.replay = 'queue-drill drill --only "a\nb"';
    const out = renderJunit(hostile);
    expect(expatComplaint(out)).toBeNull();
    const suite = findAll(parseXml(out), 'testsuite')[0]!;
    expect(suite.attributes.name).toBe(hostile.scenarios[0]!.name);
    expect(findAll(suite, 'property').find((p) => p.attributes.name === 'replay')!.attributes.value).toBe('queue-drill drill --only "a\nb"');
  });

  it('passes every testcase of a passing report', () => {
    const all = findAll(parseXml(renderJunit(passingReport())), 'testcase');
    expect(all.map(outcomeOf).filter((o) => o !== 'passed' && o !== 'skipped')).toEqual([]);
  });
});

describe('renderJunit, when the queue could not give some evidence', () => {
  const report = notJudgedReport();
  const xml = renderJunit(report);
  const root = parseXml(xml);
  const suite = findAll(root, 'testsuite')[0]!;
  const cases = findAll(suite, 'testcase');

  it('is well-formed XML, with the queue version as a suite property', () => {
    expect(expatComplaint(xml)).toBeNull();
    const properties = Object.fromEntries(findAll(suite, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(properties).toMatchObject({ verdict: 'pass', queue: 'stub', queueVersion: 'stub 0.0.1' });
  });

  it('makes each invariant not judged a skipped testcase saying why, never a passed one', () => {
    const skipped = cases.filter((c) => outcomeOf(c) === 'skipped');
    expect(skipped.map((c) => c.attributes.name)).toEqual(NEEDS_HISTORY);
    for (const testcase of skipped) {
      expect(testcase.children).toHaveLength(1);
      expect(testcase.children[0]!.attributes).toEqual({ message: `not judged: ${NO_HISTORY_NOTE}` });
    }
    const passed = cases.filter((c) => outcomeOf(c) === 'passed').map((c) => c.attributes.name);
    for (const id of NEEDS_HISTORY) expect(passed).not.toContain(id);
    expect(passed).toEqual([
      ...INVARIANT_IDS.filter((id) => !NEEDS_HISTORY.includes(id)),
      JUNIT_CASES.outcome,
      JUNIT_CASES.faults,
      JUNIT_CASES.judged,
    ]);
  });

  it("counts them in the suite's and the whole's skipped, with no failure", () => {
    const counts = { tests: String(INVARIANT_IDS.length + 3), failures: '0', errors: '0', skipped: String(NEEDS_HISTORY.length) };
    expect(suite.attributes).toMatchObject(counts);
    expect(root.attributes).toMatchObject(counts);
  });

  it('keeps a multi-line or hostile reason on one line of a well-formed attribute', () => {
    const hostile = notJudgedReport();
    const verdict = hostile.scenarios[0]!.invariants.find((v) => v.status === 'not_judged')!;
    verdict.note = 'needs history <&> "quoted"\nsecond line \u001b[0m';
    const out = renderJunit(hostile);
    expect(expatComplaint(out)).toBeNull();
    const testcase = findAll(parseXml(out), 'testcase').find((c) => c.attributes.name === verdict.id)!;
    expect(testcase.children[0]).toMatchObject({
      name: 'skipped',
      attributes: { message: 'not judged: needs history <&> "quoted" second line \\x1B[0m' },
    });
  });
});
