import { describe, expect, it } from 'vitest';
import { EVIDENCE_KINDS, INVARIANT_IDS } from '../../src/kernel/vocabulary.js';
import { checkReport, type DrillReport, DrillReportSchema, REPORT_VERSION, reportJsonSchema } from '../../src/report/schema.js';
import {
  drillReport,
  inconclusiveReport,
  interruptedReport,
  NEEDS_HISTORY,
  NO_HISTORY,
  NO_HISTORY_NOTE,
  notJudgedReport,
  passingReport,
} from './fixture.js';

/** The issues of a report that must not validate (fails the test if it does). */
function issuesOf(report: unknown): Array<{ path: string; message: string }> {
  const checked = checkReport(report);
  if (checked.ok) throw new Error('expected the report to be rejected, but it validated');
  return checked.issues;
}

describe('the report schema', () => {
  it('accepts a realistic report with one scenario of each verdict, unchanged', () => {
    const report = drillReport();
    const checked = checkReport(report);
    expect(checked).toEqual({ ok: true, report });
  });

  it('checks a report written again as a drill goes on (its scenarios checked before) as it checks it whole', () => {
    const report = drillReport();
    expect(checkReport(report).ok).toBe(true);
    // The same scenario objects again: still accepted, the report as given.
    expect(checkReport({ ...report })).toEqual({ ok: true, report });
    // A new scenario that is not valid, beside those checked before: rejected with its path, as a whole check would.
    const broken = { ...report.scenarios[0]!, verdict: 'maybe' };
    const again = { ...report, scenarios: [...report.scenarios, broken] };
    expect(issuesOf(again).map((issue) => issue.path)).toContain(`scenarios[${report.scenarios.length}].verdict`);
    // Scenarios checked before, now disagreeing with the counts around them: the report's own checks still hold it.
    expect(issuesOf({ ...report, scenarios: report.scenarios.slice(1) }).length).toBeGreaterThan(0);
  });

  it('accepts the report after a JSON round trip (what report.json holds)', () => {
    expect(checkReport(JSON.parse(JSON.stringify(drillReport()))).ok).toBe(true);
    expect(checkReport(passingReport()).ok).toBe(true);
    expect(checkReport(JSON.parse(JSON.stringify(notJudgedReport()))).ok).toBe(true);
  });

  it('accepts a passing scenario whose queue could not give the history, its invariants not judged and counted apart', () => {
    const report = notJudgedReport();
    expect(checkReport(report)).toEqual({ ok: true, report });
    const [scenario] = report.scenarios;
    expect(scenario!.verdict).toBe('pass');
    expect(scenario!.available.history).toBe(NO_HISTORY);
    const notJudged = scenario!.invariants.filter((v) => v.status === 'not_judged');
    expect(notJudged.map((v) => v.id)).toEqual(NEEDS_HISTORY);
    for (const v of notJudged) expect(v).toMatchObject({ evidence: [], note: NO_HISTORY_NOTE });
    expect(report.summary.invariants).toEqual({
      held: scenario!.invariants.length - NEEDS_HISTORY.length,
      broken: 0,
      notJudged: NEEDS_HISTORY.length,
    });
  });

  // The summary's invariant counts must agree with the scenarios, whichever way they are wrong.
  it.each<{ why: string; breakIt: (r: DrillReport) => void; path: string; message: RegExp }>([
    {
      why: 'not judged counted as held',
      breakIt: (r) =>
        (r.summary.invariants = { ...r.summary.invariants, held: r.summary.invariants.held + r.summary.invariants.notJudged, notJudged: 0 }),
      path: 'summary.invariants.notJudged',
      message: /is 0, but the scenarios count [1-9]/,
    },
    {
      why: 'not judged miscounted by one',
      breakIt: (r) => r.summary.invariants.notJudged--,
      path: 'summary.invariants.notJudged',
      message: /but the scenarios count/,
    },
    {
      why: 'a verdict turned not judged behind the summary',
      breakIt: (r) => (r.scenarios[0]!.invariants[0] = { ...r.scenarios[0]!.invariants[0]!, status: 'not_judged', note: NO_HISTORY_NOTE }),
      path: 'summary.invariants.notJudged',
      message: /but the scenarios count/,
    },
  ])('refuses a summary with $why, at summary.invariants', ({ breakIt, path, message }) => {
    const report = notJudgedReport();
    breakIt(report);
    const issue = issuesOf(report).find((i) => i.path === path);
    expect(issue).toBeDefined();
    expect(issue!.message).toMatch(message);
  });

  // Each case breaks one thing; the issue must name where.
  it.each<{ why: string; breakIt: (r: DrillReport & Record<string, unknown>) => void; path: string; message?: RegExp }>([
    { why: 'a wrong version', breakIt: (r) => ((r as { version: number }).version = 1), path: 'version' },
    { why: 'another tool', breakIt: (r) => ((r as { tool: string }).tool = 'jepsen'), path: 'tool' },
    { why: 'a missing top-level field', breakIt: (r) => delete (r as Partial<DrillReport>).command, path: 'command' },
    {
      why: 'a missing scenario field',
      breakIt: (r) => delete (r.scenarios[1] as Partial<DrillReport['scenarios'][number]>).replay,
      path: 'scenarios[1].replay',
    },
    {
      why: 'a wrong type deep in a job',
      breakIt: (r) => ((r.scenarios[0]!.jobs[0] as { matches: unknown }).matches = 'yes'),
      path: 'scenarios[0].jobs[0].matches',
    },
    {
      why: 'an unknown invariant id',
      breakIt: (r) => ((r.scenarios[0]!.invariants[2] as { id: string }).id = 'no-bugs'),
      path: 'scenarios[0].invariants[2].id',
    },
    {
      why: 'a field the schema does not name',
      breakIt: (r) => ((r.scenarios[0]!.artefacts as Record<string, unknown>).core = 'core.123'),
      path: 'scenarios[0].artefacts',
      message: /core/,
    },
    { why: 'a timestamp with an offset', breakIt: (r) => (r.startedAt = '2026-08-25T12:00:00.000+02:00'), path: 'startedAt', message: /UTC/ },
    { why: 'an exit code outside 0-4', breakIt: (r) => ((r as { exitCode: number }).exitCode = 5), path: 'exitCode' },
    { why: 'a repeat index of 0', breakIt: (r) => (r.scenarios[0]!.repeat = 0), path: 'scenarios[0].repeat' },
    {
      why: 'a "duplicated" effect applied once',
      breakIt: (r) => (r.scenarios[1]!.duplicatedEffects[0]!.times = 1),
      path: 'scenarios[1].duplicatedEffects[0].times',
    },
    {
      why: 'a timeline event of an unknown kind',
      breakIt: (r) => ((r.scenarios[0]!.timeline[0] as { kind: string }).kind = 'explode'),
      path: 'scenarios[0].timeline[0].kind',
    },
    {
      why: 'a timeline event at an unknown point',
      breakIt: (r) => ((r.scenarios[0]!.timeline[1] as { point?: string }).point = 'after_lunch'),
      path: 'scenarios[0].timeline[1].point',
    },
    { why: 'a numeric job id (v1)', breakIt: (r) => ((r.scenarios[0]!.jobs[0] as { id: unknown }).id = 1), path: 'scenarios[0].jobs[0].id' },
    {
      why: 'a numeric recovery job id (v1)',
      breakIt: (r) => ((r.scenarios[0]!.recovery[0] as { jobId: unknown }).jobId = 1),
      path: 'scenarios[0].recovery[0].jobId',
    },
    {
      why: 'a verdict with holds instead of a status (v1)',
      breakIt: (r) => (r.scenarios[0]!.invariants[0] = { id: 'no-lost-job', statement: 's', holds: true, evidence: [] } as never),
      path: 'scenarios[0].invariants[0].status',
    },
    {
      why: 'an unknown invariant status',
      breakIt: (r) => ((r.scenarios[0]!.invariants[0] as { status: string }).status = 'skipped'),
      path: 'scenarios[0].invariants[0].status',
    },
    {
      why: 'a scenario without its queue version',
      breakIt: (r) => delete (r.scenarios[0] as Partial<DrillReport['scenarios'][number]>).queueVersion,
      path: 'scenarios[0].queueVersion',
    },
    {
      why: 'an evidence kind missing',
      breakIt: (r) => delete (r.scenarios[0]!.available as Partial<Record<string, unknown>>).history,
      path: 'scenarios[0].available.history',
    },
    {
      why: 'an evidence kind said unavailable without a reason',
      breakIt: (r) => ((r.scenarios[0]!.available as Record<string, unknown>).holder = false),
      path: 'scenarios[0].available.holder',
    },
    {
      why: 'an unknown evidence kind',
      breakIt: (r) => ((r.scenarios[0]!.available as Record<string, unknown>).telepathy = true),
      path: 'scenarios[0].available',
      message: /telepathy/,
    },
    {
      why: 'a summary without invariant counts',
      breakIt: (r) => delete (r.summary as Partial<DrillReport['summary']>).invariants,
      path: 'summary.invariants',
    },
    // Consistency: the report must agree with itself.
    {
      why: 'a pass over a broken invariant',
      breakIt: (r) => (r.scenarios[0]!.invariants[0]!.status = 'broken'),
      path: 'scenarios[0].verdict',
      message: /make it fail/,
    },
    {
      why: 'a pass with an unfired fault',
      breakIt: (r) => r.scenarios[0]!.unfired.push('crash at after_write never fired'),
      path: 'scenarios[0].verdict',
      message: /vacuous/,
    },
    {
      why: 'a verdict of error without an error',
      breakIt: (r) => (r.scenarios[3]!.error = null),
      path: 'scenarios[3].verdict',
      message: /make it pass/,
    },
    { why: 'a summary that miscounts', breakIt: (r) => (r.summary.passed = 2), path: 'summary.passed' },
    { why: 'a summary that miscounts broken invariants', breakIt: (r) => (r.summary.invariants.broken = 0), path: 'summary.invariants.broken' },
    { why: 'a summary that miscounts held invariants', breakIt: (r) => r.summary.invariants.held++, path: 'summary.invariants.held' },
    { why: 'exit code 0 while a scenario failed', breakIt: (r) => (r.exitCode = 0), path: 'exitCode' },
    { why: 'the same run twice', breakIt: (r) => r.scenarios.push({ ...r.scenarios[2]! }), path: 'scenarios[4].repeat' },
    { why: 'finishing before starting', breakIt: (r) => (r.finishedAt = '2026-08-25T09:59:59.000Z'), path: 'finishedAt' },
  ])('rejects $why, naming the path', ({ breakIt, path, message }) => {
    const report = drillReport() as DrillReport & Record<string, unknown>;
    breakIt(report);
    const issues = issuesOf(report);
    const issue = issues.find((i) => i.path === path);
    expect(issue, `no issue at ${path}; got ${JSON.stringify(issues)}`).toBeDefined();
    if (message) expect(issue!.message).toMatch(message);
  });

  it('accepts an interrupted drill: a scenario stopped before rest with nothing judged, and the runs it never started', () => {
    const report = interruptedReport();
    expect(checkReport(JSON.parse(JSON.stringify(report)))).toEqual({ ok: true, report });
  });

  it('accepts a drill on a starved machine: a scenario inconclusive, with its spans and time scale, counted apart, exit code 4', () => {
    const report = inconclusiveReport();
    expect(checkReport(JSON.parse(JSON.stringify(report)))).toEqual({ ok: true, report });
    expect(issuesOf({ ...report, exitCode: 0 }).map((i) => i.path)).toContain('exitCode');
    expect(issuesOf({ ...report, summary: { ...report.summary, inconclusive: 0 } }).map((i) => i.path)).toContain('summary.inconclusive');
  });

  // An interruption must be told the same way everywhere, and a half-run must claim nothing.
  it.each<{ why: string; breakIt: (r: DrillReport) => void; path: string; message: RegExp }>([
    {
      why: 'an interrupted scenario claiming a broken invariant',
      breakIt: (r) =>
        (r.scenarios[1]!.invariants[0] = { ...r.scenarios[1]!.invariants[0]!, status: 'broken', judged: 1, evidence: ['job 1 is running'] }),
      path: 'scenarios[1].invariants[0].status',
      message: /is broken, but the scenario was interrupted/,
    },
    {
      why: 'an interrupted scenario called a failure',
      breakIt: (r) => (r.scenarios[1]!.verdict = 'fail'),
      path: 'scenarios[1].verdict',
      message: /make it interrupted/,
    },
    {
      why: 'an interrupted scenario in a drill that was not interrupted',
      breakIt: (r) => {
        r.interruption = null;
        r.summary.notStarted = 0;
      },
      path: 'scenarios[1].interrupted',
      message: /no interruption/,
    },
    {
      why: 'an interrupted drill that exits 1',
      breakIt: (r) => (r.exitCode = 1),
      path: 'exitCode',
      message: /interrupted \(3\)/,
    },
    {
      why: 'runs never started left out of the summary',
      breakIt: (r) => (r.summary.notStarted = 0),
      path: 'summary.notStarted',
      message: /is 0, but the scenarios count 2/,
    },
    {
      why: 'the interrupted scenario left out of the summary',
      breakIt: (r) => (r.summary.interrupted = 0),
      path: 'summary.interrupted',
      message: /is 0, but the scenarios count 1/,
    },
  ])('rejects $why', ({ breakIt, path, message }) => {
    const report = interruptedReport();
    breakIt(report);
    const issue = issuesOf(report).find((i) => i.path === path);
    expect(issue, JSON.stringify(issuesOf(report))).toBeDefined();
    expect(issue!.message).toMatch(message);
  });

  it('counts a same-named scenario as distinct runs when --repeat gives them different indexes', () => {
    const report = drillReport();
    report.scenarios.push({ ...report.scenarios[2]!, repeat: 2 });
    report.summary = {
      ...report.summary,
      scenarios: 5,
      vacuous: 2,
      invariants: { ...report.summary.invariants, held: report.summary.invariants.held + INVARIANT_IDS.length },
    };
    expect(checkReport(report).ok).toBe(true);
  });

  it('has a JSON Schema for tools: the version pinned, every field required but the optional baseline, shard, merged, calibration and lanes, no unknown fields', () => {
    const schema = reportJsonSchema() as {
      $schema: string;
      title: string;
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { const?: unknown; enum?: unknown[]; items?: { required: string[]; additionalProperties: boolean } }>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.title).toMatch(/recovery report/);
    expect(schema.additionalProperties).toBe(false);
    expect([...schema.required].sort()).toEqual(
      Object.keys(DrillReportSchema.shape)
        .filter((key) => !['baseline', 'shard', 'merged', 'calibration', 'lanes'].includes(key))
        .sort(),
    );
    expect(schema.properties.version?.const ?? schema.properties.version?.enum?.[0]).toBe(REPORT_VERSION);
    const scenario = schema.properties.scenarios?.items;
    expect(scenario?.additionalProperties).toBe(false);
    expect(scenario?.required).toEqual(
      expect.arrayContaining(['verdict', 'replay', 'invariants', 'unfired', 'recovery', 'jobs', 'error', 'queueVersion', 'available']),
    );
    const scenarioProperties = (
      scenario as unknown as { properties: Record<string, { required?: string[]; items?: { properties: Record<string, { enum?: string[] }> } }> }
    ).properties;
    expect([...(scenarioProperties.available?.required ?? [])].sort()).toEqual([...EVIDENCE_KINDS].sort());
    expect(scenarioProperties.invariants?.items?.properties.status?.enum).toEqual(['held', 'broken', 'not_judged']);
    expect((schema.properties.summary as unknown as { required: string[] }).required).toContain('invariants');
    // Serialisable as is: it is written to report.schema.json.
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
