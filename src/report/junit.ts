import { scenarioLabel } from './scenario-label.js';
import type { DrillReport, ScenarioReport } from './schema.js';

/*
 * The report as JUnit XML, the format GitHub, GitLab and Jenkins test views
 * read. One <testsuite> per scenario run; in it one <testcase> per invariant,
 * plus "expected outcome" (did every job end as the scenario says) and
 * "faults fired" (did every armed fault fire: a drill whose fault never fired
 * has not passed), and "something judged" (did every invariant the scenario
 * should have given something to judge have something: one that held on
 * nothing has not passed either). An invariant that had nothing to judge is
 * <skipped>, a harness failure is an <error> on "expected outcome" (the
 * outcome could not be judged), and "faults fired" and "something judged" are
 * skipped then, since a harness that failed early leaves faults unfired and
 * invariants with nothing for no fault of the queue.
 *
 * The scenario's whole duration is given to "expected outcome", the drill run
 * itself; the invariant checks get 0. Some CI views add testcase times up to
 * a suite's, so this keeps both views of time the same.
 */

type Outcome = { kind: 'passed' } | { kind: 'skipped'; message: string } | { kind: 'failure' | 'error'; type: string; message: string; body: string };

interface TestCase {
  name: string;
  seconds: number;
  outcome: Outcome;
}

/** The names of the two testcases every scenario has besides its invariants. */
export const JUNIT_CASES = { outcome: 'expected outcome', faults: 'faults fired', judged: 'something judged' } as const;

/** The report as JUnit XML (UTF-8), one testsuite per scenario run. */
export function renderJunit(report: DrillReport): string {
  const suites = report.scenarios.map((scenario) => ({ scenario, label: scenarioLabel(scenario, report.scenarios), cases: testCases(scenario) }));
  const all = suites.flatMap((suite) => suite.cases);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'queue-drill', ...counts(all), time: seconds(report.durationMs / 1000), timestamp: report.startedAt })}>`,
  ];
  for (const { scenario, label, cases } of suites) {
    out.push(`  <testsuite${attributes({ name: label, ...counts(cases), time: seconds(scenario.durationMs / 1000) })}>`);
    out.push('    <properties>');
    const properties: Record<string, string> = {
      verdict: scenario.verdict,
      queue: scenario.queue,
      queueVersion: scenario.queueVersion,
      seed: String(scenario.seed),
      repeat: String(scenario.repeat),
      replay: scenario.replay,
      runDir: scenario.runDir,
    };
    for (const [name, value] of Object.entries(properties)) out.push(`      <property${attributes({ name, value })}/>`);
    out.push('    </properties>');
    for (const testCase of cases) out.push(...renderCase(label, testCase));
    out.push(`    <system-out>${escapeText(systemOut(scenario))}</system-out>`, '  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function testCases(scenario: ScenarioReport): TestCase[] {
  const invariants = scenario.invariants.map((verdict): TestCase => {
    if (verdict.status === 'not_judged') {
      // Counted apart from passed: the queue could not give what this invariant needs.
      return {
        name: verdict.id,
        seconds: 0,
        outcome: { kind: 'skipped', message: `not judged: ${verdict.note ?? 'the queue cannot give the evidence it needs'}` },
      };
    }
    if (verdict.status === 'broken') {
      const first = verdict.evidence[0];
      return {
        name: verdict.id,
        seconds: 0,
        outcome: {
          kind: 'failure',
          type: 'invariant',
          // The testcase's name is the invariant; its first piece of evidence says best what broke.
          message:
            first === undefined ? verdict.statement : `${first}${verdict.evidence.length > 1 ? ` (and ${verdict.evidence.length - 1} more)` : ''}`,
          body: [verdict.statement, '', ...verdict.evidence].join('\n'),
        },
      };
    }
    return {
      name: verdict.id,
      seconds: 0,
      outcome:
        verdict.judged === 0
          ? { kind: 'skipped', message: `nothing to judge${verdict.note !== undefined ? `: ${verdict.note}` : ''}` }
          : { kind: 'passed' },
    };
  });
  return [...invariants, expectedOutcome(scenario), faultsFired(scenario), somethingJudged(scenario)];
}

function expectedOutcome(scenario: ScenarioReport): TestCase {
  const seconds = scenario.durationMs / 1000;
  if (scenario.notJudged !== null)
    return { name: JUNIT_CASES.outcome, seconds, outcome: { kind: 'skipped', message: `not judged: ${scenario.notJudged}` } };
  if (scenario.error !== null) {
    return {
      name: JUNIT_CASES.outcome,
      seconds,
      outcome: {
        kind: 'error',
        type: 'harness',
        message: `the harness failed: ${scenario.error}`,
        body: `${scenario.error}\n\nreplay: ${scenario.replay}`,
      },
    };
  }
  const wrong = scenario.jobs.filter((job) => !job.matches);
  if (scenario.expectations.length === 0 && wrong.length === 0) return { name: JUNIT_CASES.outcome, seconds, outcome: { kind: 'passed' } };
  // The expectation lines say it best; a job marked as not matching without one still gets a line.
  const lines =
    scenario.expectations.length > 0
      ? scenario.expectations
      : wrong.map((job) => `job ${job.id ?? '(no job in the queue)'} (${job.key}): expected ${job.expected.status}, ended ${job.actual.status}`);
  const message =
    wrong.length > 0
      ? `${wrong.length} of ${scenario.jobs.length} jobs did not end as expected`
      : `${lines.length} expectation${lines.length === 1 ? '' : 's'} not met`;
  return {
    name: JUNIT_CASES.outcome,
    seconds,
    outcome: {
      kind: 'failure',
      type: 'expectation',
      message: `${message}: ${lines[0] ?? ''}`,
      body: [...lines, '', `replay: ${scenario.replay}`].join('\n'),
    },
  };
}

function faultsFired(scenario: ScenarioReport): TestCase {
  const name = JUNIT_CASES.faults;
  if (scenario.notJudged !== null) return { name, seconds: 0, outcome: { kind: 'skipped', message: `not judged: ${scenario.notJudged}` } };
  if (scenario.error !== null) return { name, seconds: 0, outcome: { kind: 'skipped', message: 'not judged: the harness failed' } };
  if (scenario.unfired.length > 0) {
    const message = `${scenario.unfired.length} armed fault${scenario.unfired.length === 1 ? '' : 's'} never fired: ${scenario.unfired[0]}`;
    return {
      name,
      seconds: 0,
      outcome: { kind: 'failure', type: 'vacuous', message, body: [...scenario.unfired, '', `replay: ${scenario.replay}`].join('\n') },
    };
  }
  if (scenario.faults.length === 0 && scenario.worldFaults.length === 0)
    return { name, seconds: 0, outcome: { kind: 'skipped', message: 'no fault was armed' } };
  return { name, seconds: 0, outcome: { kind: 'passed' } };
}

function somethingJudged(scenario: ScenarioReport): TestCase {
  const name = JUNIT_CASES.judged;
  if (scenario.notJudged !== null) return { name, seconds: 0, outcome: { kind: 'skipped', message: `not judged: ${scenario.notJudged}` } };
  if (scenario.error !== null) return { name, seconds: 0, outcome: { kind: 'skipped', message: 'not judged: the harness failed' } };
  if (scenario.nothingJudged.length === 0) return { name, seconds: 0, outcome: { kind: 'passed' } };
  const count = scenario.nothingJudged.length;
  return {
    name,
    seconds: 0,
    outcome: {
      kind: 'failure',
      type: 'vacuous',
      message: `${count} invariant${count === 1 ? '' : 's'} had nothing to judge: ${scenario.nothingJudged[0]}`,
      body: [...scenario.nothingJudged, '', `replay: ${scenario.replay}`].join('\n'),
    },
  };
}

function renderCase(classname: string, testCase: TestCase): string[] {
  const open = `    <testcase${attributes({ classname, name: testCase.name, time: seconds(testCase.seconds) })}`;
  const { outcome } = testCase;
  switch (outcome.kind) {
    case 'passed':
      return [`${open}/>`];
    case 'skipped':
      return [`${open}>`, `      <skipped${attributes({ message: messageLine(outcome.message) })}/>`, '    </testcase>'];
    case 'failure':
    case 'error':
      return [
        `${open}>`,
        `      <${outcome.kind}${attributes({ message: messageLine(outcome.message), type: outcome.type })}>${escapeText(outcome.body)}</${outcome.kind}>`,
        '    </testcase>',
      ];
    default: {
      const unknown: never = outcome;
      throw new Error(`unknown testcase outcome ${JSON.stringify(unknown)}`);
    }
  }
}

function counts(cases: readonly TestCase[]): { tests: string; failures: string; errors: string; skipped: string } {
  const of = (kind: Outcome['kind']) => String(cases.filter((c) => c.outcome.kind === kind).length);
  return { tests: String(cases.length), failures: of('failure'), errors: of('error'), skipped: of('skipped') };
}

function systemOut(scenario: ScenarioReport): string {
  return [
    ...(scenario.description !== '' ? [scenario.description, ''] : []),
    `replay: ${scenario.replay}`,
    `run directory: ${scenario.runDir}`,
    '',
    'timeline:',
    ...scenario.timeline.map((e) => `${e.at} ${e.kind} ${e.process ?? '-'} ${e.detail}`),
  ].join('\n');
}

function seconds(value: number): string {
  return value.toFixed(3);
}

// CI views show the message on one line; the whole story is in the element's body.
function messageLine(message: string): string {
  const line = message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}

function attributes(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
}

// Whitespace becomes character references: attribute normalisation would turn it into spaces.
function escapeAttribute(value: string): string {
  return xmlChars(value).replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ENTITIES[c] ?? c);
}

function escapeText(value: string): string {
  return xmlChars(value).replace(/[&<>\r]/g, (c) => ATTRIBUTE_ENTITIES[c] ?? c);
}

const ATTRIBUTE_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

// XML 1.0 cannot carry most C0 controls even as character references, nor
// U+FFFE/U+FFFF or unpaired surrogates. Logs hold them (ANSI colours, NULs),
// so a control becomes a visible "\x1B" and the rest U+FFFD, rather than a
// file every CI parser rejects.
function xmlChars(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (c) => {
    const point = c.codePointAt(0) ?? 0;
    return point < 0x20 ? `\\x${point.toString(16).toUpperCase().padStart(2, '0')}` : '\uFFFD';
  });
}
