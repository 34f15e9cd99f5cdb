import { baselineLines } from './baseline-lines.js';
import { attributes, counts, escapeText, renderCase, seconds, type TestCase } from './junit-xml.js';
import { notJudgedReason } from './not-judged-reason.js';
import { describeReproduction } from './reproduction-line.js';
import { faultLimits, invariantOutcomes, jobGroups } from './scenario-facts.js';
import { allRuns, scenarioLabel } from './scenario-label.js';
import type { DrillReport, ScenarioReport } from './schema.js';
import { attemptLines, INCONCLUSIVE_ADVICE, starvationText, timeScaleValue } from './starvation-lines.js';
import { eventfulTimeline, timelineLine } from './timeline-excerpt.js';

/*
 * The report as JUnit XML, the format GitHub, GitLab and Jenkins test views
 * read. What a dashboard counts must mean what it says, so a test is what a
 * person asks of a drill: did this scenario recover as it should?
 *
 * - One <testsuite> per queue, one <testcase> per scenario run (classname the
 *   queue, name the scenario, as `compare`'s junit.xml names its cells). Its
 *   outcome is the scenario's verdict: pass passes; fail is a <failure>
 *   (type "invariant" with the invariants that broke and their evidence, or
 *   "expectation" for jobs that ended wrong); vacuous is a <failure> too
 *   (type "vacuous": a drill whose fault never fired, or that gave an
 *   invariant nothing to judge where it should have, has not passed); error
 *   is an <error> (the harness failed); interrupted is an <error> (type
 *   "interrupted": stopped before rest, so not judged, and never green);
 *   inconclusive is an <error> (type "inconclusive": the machine starved the
 *   drill; not the queue's failure, so not a <failure>, but never green
 *   either), its lines, each naming the starved process and span, in the
 *   body; not judged (the queue cannot run it as asked, nothing ran) is
 *   <skipped>.
 * - Each invariant the queue could not give the evidence for, in a scenario
 *   that ran, is a <skipped> testcase of its own ("<scenario>: <invariant>"),
 *   saying why: a check that was not performed, which is what skipped means.
 * - An invariant that held with nothing to judge is not a test that was
 *   skipped: it passed, and the scenario's <system-out> says it had nothing.
 * - A scenario run an interruption kept from starting is <skipped>.
 * - With --baseline, one more suite: a <failure> per regression, else one
 *   passing case.
 *
 * Each suite's <properties> say what the drill ran with: the queue, the seed,
 * the command, the scenarios file and the time scale with how it was chosen
 * ("1.5 (auto: start 589 ms, timer 4 ms late)", "1 (given)"). Each scenario's
 * <system-out> holds its summary (each earlier attempt when the machine
 * starved it and it ran again, description, invariants, faults with their
 * limits, jobs, recovery, starvation, replay) and, when it did not pass, the
 * eventful part of its timeline; report.html has the rest.
 */

/** The report as JUnit XML (UTF-8): a testsuite per queue, a testcase per scenario run. */
export function renderJunit(report: DrillReport): string {
  const runs = allRuns(report);
  const queues = [...new Set(runs.map((run) => run.queue))];
  const suites = queues.map((queue) => ({ queue, cases: queueCases(report, queue) }));
  const baseline = report.baseline ? baselineCases(report.baseline) : [];
  const all = [...suites.flatMap((suite) => suite.cases.map((c) => c.testCase)), ...baseline];
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'queue-drill', ...counts(all), time: seconds(report.durationMs / 1000), timestamp: report.startedAt })}>`,
  ];
  for (const { queue, cases } of suites) {
    const testCases = cases.map((c) => c.testCase);
    // The cases' times as written, added: a CI view that adds them up gets the suite's.
    const time = testCases.reduce((sum, c) => sum + Number(seconds(c.seconds)), 0);
    out.push(`  <testsuite${attributes({ name: queue, ...counts(testCases), time: seconds(time), timestamp: report.startedAt })}>`);
    out.push('    <properties>');
    const properties = {
      queue,
      seed: String(report.seed),
      command: report.command,
      file: report.file,
      'time-scale': timeScaleValue(report),
      ...interruptionProperty(report),
    };
    for (const [name, value] of Object.entries(properties)) out.push(`      <property${attributes({ name, value })}/>`);
    out.push('    </properties>');
    for (const { testCase, systemOut } of cases) out.push(...withSystemOut(renderCase(queue, testCase), systemOut));
    out.push('  </testsuite>');
  }
  if (report.baseline) {
    out.push(`  <testsuite${attributes({ name: 'against the baseline', ...counts(baseline), time: seconds(0) })}>`);
    for (const testCase of baseline) out.push(...renderCase('against the baseline', testCase));
    out.push(`    <system-out>${escapeText(baselineLines(report.baseline).others.join('\n'))}</system-out>`, '  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function interruptionProperty(report: DrillReport): Record<string, string> {
  return report.interruption ? { interruptedBy: report.interruption.by } : {};
}

/** A rendered testcase with a <system-out> of its own, where it has one. */
function withSystemOut(lines: string[], systemOut: string | null): string[] {
  if (systemOut === null) return lines;
  const body = `      <system-out>${escapeText(systemOut)}</system-out>`;
  const last = lines.at(-1)!;
  // A passed case renders self-closed; open it to hold its output.
  if (last.endsWith('/>') && lines.length === 1) return [last.replace(/\/>$/, '>'), body, '    </testcase>'];
  return [...lines.slice(0, -1), body, last];
}

interface RenderedCase {
  testCase: TestCase;
  systemOut: string | null;
}

/** Every testcase of one queue's suite: each scenario run's, each invariant not judged in it, each run never started. */
function queueCases(report: DrillReport, queue: string): RenderedCase[] {
  const runs = allRuns(report);
  const cases: RenderedCase[] = [];
  for (const scenario of report.scenarios.filter((s) => s.queue === queue)) {
    const label = scenarioLabel(scenario, runs);
    cases.push({ testCase: scenarioCase(scenario, label), systemOut: systemOut(scenario) });
    // Only where the scenario ran to rest: a scenario not judged or interrupted already says why nothing of it was judged.
    if (scenario.verdict === 'not_judged' || scenario.verdict === 'not_supported' || scenario.verdict === 'interrupted') continue;
    for (const verdict of scenario.invariants.filter((v) => v.status === 'not_judged')) {
      const message = `not judged: ${verdict.note ?? 'the queue cannot give the evidence it needs'}`;
      cases.push({ testCase: { name: `${label}: ${verdict.id}`, seconds: 0, outcome: { kind: 'skipped', message } }, systemOut: null });
    }
  }
  for (const run of report.interruption?.notStarted.filter((r) => r.queue === queue) ?? []) {
    const message = report.interruption!.unfinished
      ? 'not judged yet: this report was written while the drill ran'
      : `never started: the drill was interrupted by ${report.interruption!.by} first`;
    cases.push({ testCase: { name: scenarioLabel(run, runs), seconds: 0, outcome: { kind: 'skipped', message } }, systemOut: null });
  }
  return cases;
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

/** A scenario run's testcase: its verdict as a JUnit outcome. */
function scenarioCase(scenario: ScenarioReport, label: string): TestCase {
  const seconds = scenario.durationMs / 1000;
  const replay = `replay: ${scenario.replay}`;
  switch (scenario.verdict) {
    case 'pass':
      return { name: label, seconds, outcome: { kind: 'passed' } };
    case 'not_judged':
      return { name: label, seconds, outcome: { kind: 'skipped', message: `not judged: ${notJudgedReason(scenario) ?? ''}` } };
    case 'not_supported':
      return { name: label, seconds, outcome: { kind: 'skipped', message: `not supported: ${notJudgedReason(scenario) ?? ''}` } };
    case 'error': {
      const message = `the harness failed: ${scenario.error ?? ''}`;
      return { name: label, seconds, outcome: { kind: 'error', type: 'harness', message, body: `${scenario.error ?? ''}\n\n${replay}` } };
    }
    case 'interrupted': {
      const message = `interrupted, not judged: ${scenario.interrupted ?? ''}`;
      return { name: label, seconds, outcome: { kind: 'error', type: 'interrupted', message, body: `${message}\n\n${replay}` } };
    }
    case 'inconclusive': {
      const lines = scenario.inconclusive ?? [];
      const message = `inconclusive, the machine starved the drill: ${lines[0] ?? starvationText(scenario.starvation) ?? ''}`;
      const body = [
        `inconclusive, the machine starved the drill (${INCONCLUSIVE_ADVICE}); what starvation explains:`,
        ...lines.map((line) => `  ${line}`),
        ...starvationLine(scenario),
        ...findings(scenario),
        '',
        replay,
      ];
      return { name: label, seconds, outcome: { kind: 'error', type: 'inconclusive', message, body: body.join('\n') } };
    }
    case 'fail':
      return { name: label, seconds, outcome: { kind: 'failure', ...failure(scenario), body: [...findings(scenario), '', replay].join('\n') } };
    case 'vacuous': {
      const first = scenario.unfired[0] ?? scenario.nothingJudged[0] ?? '';
      return {
        name: label,
        seconds,
        outcome: { kind: 'failure', type: 'vacuous', message: `vacuous: ${first}`, body: [...findings(scenario), '', replay].join('\n') },
      };
    }
    default: {
      const unknown: never = scenario.verdict;
      throw new Error(`unknown verdict ${String(unknown)}`);
    }
  }
}

/** A failed scenario's type and one-line message: the invariants that broke and the first line of evidence, else the jobs that ended wrong. */
function failure(scenario: ScenarioReport): { type: string; message: string } {
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  if (broken.length > 0) {
    const first = broken[0]!.evidence[0] ?? broken[0]!.statement;
    return { type: 'invariant', message: `broke ${broken.map((v) => v.id).join(', ')}: ${first}` };
  }
  const wrong = scenario.jobs.filter((job) => !job.matches).length;
  const line = scenario.expectations[0] ?? '';
  return { type: 'expectation', message: `${wrong} of ${scenario.jobs.length} jobs did not end as expected${line !== '' ? `: ${line}` : ''}` };
}

/**
 * Everything a failure, vacuous or inconclusive verdict rests on, a line each: the broken invariants with their evidence, the jobs,
 * the faults, the empty judgements.
 */
function findings(scenario: ScenarioReport): string[] {
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  const wrongJobs = scenario.jobs.filter((job) => !job.matches);
  const expectations =
    scenario.expectations.length > 0
      ? scenario.expectations
      : wrongJobs.map((job) => `job ${job.id ?? '(no job in the queue)'} (${job.key}): expected ${job.expected.status}, ended ${job.actual.status}`);
  return [
    ...broken.flatMap((v) => [`${v.id}: ${v.statement}`, ...v.evidence.map((line) => `  ${line}`)]),
    ...(expectations.length > 0 ? ['jobs that did not end as expected:', ...expectations.map((line) => `  ${line}`)] : []),
    ...(scenario.unfired.length > 0 ? ['faults that never fired:', ...scenario.unfired.map((line) => `  ${line}`)] : []),
    ...(scenario.nothingJudged.length > 0
      ? ['nothing to judge where there should have been:', ...scenario.nothingJudged.map((line) => `  ${line}`)]
      : []),
  ];
}

/** How much the machine starved the scenario, as a line to add; none when nothing starved it. */
function starvationLine(scenario: ScenarioReport): string[] {
  const line = starvationText(scenario.starvation);
  return line === null ? [] : [`starvation: ${line}`];
}

/** A scenario's summary for its <system-out>: its earlier attempts, what it drills, how its invariants came out, its faults, jobs, recovery, its replay. */
function systemOut(scenario: ScenarioReport): string {
  const outcomes = invariantOutcomes(scenario.invariants);
  const ids = (vs: ReadonlyArray<{ id: string }>) => vs.map((v) => v.id).join(', ');
  const attempts = attemptLines(scenario);
  const lines = [
    // Every earlier attempt first, so the verdict below is read as the last of them.
    ...(attempts.length > 0
      ? ['attempts (the machine starved each earlier one; it ran again at twice its time scale):', ...attempts.map((l) => `  ${l}`), '']
      : []),
    ...(scenario.description !== '' ? [scenario.description, ''] : []),
    `verdict: ${scenario.verdict}${scenario.interrupted !== null ? ` (${scenario.interrupted})` : ''}`,
    ...(scenario.reproduction ? [describeReproduction(scenario.reproduction)] : []),
    `invariants: ${outcomes.broken.length} broken${outcomes.broken.length > 0 ? ` (${ids(outcomes.broken)})` : ''}, ${outcomes.held.length} held`,
    ...outcomes.nothingToJudge.map((v) => `  ${v.id}: held, nothing to judge${v.note !== undefined ? `: ${v.note}` : ''}`),
    ...outcomes.notJudged.map(({ why, verdicts }) => `  not judged (${why}): ${ids(verdicts)}`),
    ...scenario.faults.map((f) => `fault ${f.id}: ${f.action} at ${f.point} (${faultLimits(f).join(', ')}): fired ${f.fired} of ${f.hits} hits`),
    ...scenario.worldFaults.map((f) => `world fault #${f.id}: ${f.action} on ${f.match || 'any call'} (at most ${f.times}): fired ${f.fired}`),
    ...jobGroups(scenario.jobs).map((jobs) => {
      const job = jobs[0]!;
      const ids = jobs.map((j) => j.id ?? '(no job in the queue)').join(', ');
      const end = `${scenario.interrupted !== null ? 'stood at' : 'ended'} ${job.actual.status}${job.actual.reason !== null ? ` (${job.actual.reason})` : ''}`;
      return `jobs ${ids}: expected ${job.expected.status}, ${end}; ${job.attempts} of ${job.maxAttempts} attempts`;
    }),
    ...scenario.recovery.map(
      (r) =>
        `recovery: ${r.process} killed at ${r.point ?? '-'}, job ${r.jobId ?? '-'}: ` +
        `${r.killToReclaimMs !== null ? `taken back after ${r.killToReclaimMs} ms` : 'never taken back'}, ` +
        `${r.killToSettledMs !== null ? `settled after ${r.killToSettledMs} ms` : 'never settled'}`,
    ),
    ...starvationLine(scenario),
    ...(scenario.timeScale !== 1 ? [`time scale: every duration ×${scenario.timeScale}`] : []),
    `replay: ${scenario.replay}`,
    `run directory: ${scenario.runDir}`,
  ];
  if (scenario.verdict !== 'pass') {
    const events = eventfulTimeline(scenario);
    if (events.length > 0)
      lines.push('', 'timeline (fault points passed with nothing happening, and processes becoming ready, left out):', ...events.map(timelineLine));
  }
  return lines.join('\n');
}
