import { baselineLines } from './baseline-lines.js';
import { attributes, counts, escapeText, renderCase, seconds, type TestCase } from './junit-xml.js';
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

/** The names of the two testcases every scenario has besides its invariants. */
export const JUNIT_CASES = { outcome: 'expected outcome', faults: 'faults fired', judged: 'something judged' } as const;

/** The report as JUnit XML (UTF-8), one testsuite per scenario run. */
export function renderJunit(report: DrillReport): string {
  const suites = report.scenarios.map((scenario) => ({ scenario, label: scenarioLabel(scenario, report.scenarios), cases: testCases(scenario) }));
  const baseline = report.baseline ? baselineCases(report.baseline) : [];
  const all = [...suites.flatMap((suite) => suite.cases), ...baseline];
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
  if (report.baseline) {
    out.push(`  <testsuite${attributes({ name: 'against the baseline', ...counts(baseline), time: seconds(0) })}>`);
    for (const testCase of baseline) out.push(...renderCase('against the baseline', testCase));
    out.push(`    <system-out>${escapeText(baselineLines(report.baseline).others.join('\n'))}</system-out>`, '  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** One failing case per regression against the baseline; one passing case when there is none. */
function baselineCases(baseline: NonNullable<DrillReport['baseline']>): TestCase[] {
  if (baseline.regressions.length === 0) return [{ name: 'no regression', seconds: 0, outcome: { kind: 'passed' } }];
  return baseline.regressions.map((r) => ({
    name: `${r.scenario}: ${r.kind}`,
    seconds: 0,
    outcome: { kind: 'failure', type: 'regression', message: r.detail, body: `${r.detail}\n\nbaseline: ${baseline.baseline}` },
  }));
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
