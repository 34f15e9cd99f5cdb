import { describe, expect, it } from 'vitest';
import { checkReport, DrillReportSchema, REPORT_VERSION, reportJsonSchema, type DrillReport } from '../../src/report/schema.js';
import { drillReport, passingReport } from './fixture.js';

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

  it('accepts the report after a JSON round trip (what report.json holds)', () => {
    expect(checkReport(JSON.parse(JSON.stringify(drillReport()))).ok).toBe(true);
    expect(checkReport(passingReport()).ok).toBe(true);
  });

  // Each case breaks one thing; the issue must name where.
  it.each<{ why: string; breakIt: (r: DrillReport & Record<string, unknown>) => void; path: string; message?: RegExp }>([
    { why: 'a wrong version', breakIt: (r) => ((r as { version: number }).version = 2), path: 'version' },
    { why: 'another tool', breakIt: (r) => ((r as { tool: string }).tool = 'jepsen'), path: 'tool' },
    { why: 'a missing top-level field', breakIt: (r) => delete (r as Partial<DrillReport>).command, path: 'command' },
    { why: 'a missing scenario field', breakIt: (r) => delete (r.scenarios[1] as Partial<DrillReport['scenarios'][number]>).replay, path: 'scenarios[1].replay' },
    { why: 'a wrong type deep in a job', breakIt: (r) => ((r.scenarios[0]!.jobs[0] as { matches: unknown }).matches = 'yes'), path: 'scenarios[0].jobs[0].matches' },
    { why: 'an unknown invariant id', breakIt: (r) => ((r.scenarios[0]!.invariants[2] as { id: string }).id = 'no-bugs'), path: 'scenarios[0].invariants[2].id' },
    { why: 'a field the schema does not name', breakIt: (r) => (r.scenarios[0]!.artefacts as Record<string, unknown>).core = 'core.123', path: 'scenarios[0].artefacts', message: /core/ },
    { why: 'a timestamp with an offset', breakIt: (r) => (r.startedAt = '2026-08-25T12:00:00.000+02:00'), path: 'startedAt', message: /UTC/ },
    { why: 'an exit code outside 0-3', breakIt: (r) => ((r as { exitCode: number }).exitCode = 4), path: 'exitCode' },
    { why: 'a repeat index of 0', breakIt: (r) => (r.scenarios[0]!.repeat = 0), path: 'scenarios[0].repeat' },
    { why: 'a "duplicated" effect applied once', breakIt: (r) => (r.scenarios[1]!.duplicatedEffects[0]!.times = 1), path: 'scenarios[1].duplicatedEffects[0].times' },
    { why: 'a timeline event of an unknown kind', breakIt: (r) => ((r.scenarios[0]!.timeline[0] as { kind: string }).kind = 'explode'), path: 'scenarios[0].timeline[0].kind' },
    // Consistency: the report must agree with itself.
    { why: 'a pass over a broken invariant', breakIt: (r) => (r.scenarios[0]!.invariants[0]!.holds = false), path: 'scenarios[0].verdict', message: /make it fail/ },
    { why: 'a pass with an unfired fault', breakIt: (r) => r.scenarios[0]!.unfired.push('crash at after_write never fired'), path: 'scenarios[0].verdict', message: /vacuous/ },
    { why: 'a verdict of error without an error', breakIt: (r) => (r.scenarios[3]!.error = null), path: 'scenarios[3].verdict', message: /make it pass/ },
    { why: 'a summary that miscounts', breakIt: (r) => (r.summary.passed = 2), path: 'summary.passed' },
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

  it('counts a same-named scenario as distinct runs when --repeat gives them different indexes', () => {
    const report = drillReport();
    report.scenarios.push({ ...report.scenarios[2]!, repeat: 2 });
    report.summary = { ...report.summary, scenarios: 5, vacuous: 2 };
    expect(checkReport(report).ok).toBe(true);
  });

  it('has a JSON Schema for tools: version 1 pinned, every field required, no unknown fields', () => {
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
    expect([...schema.required].sort()).toEqual(Object.keys(DrillReportSchema.shape).sort());
    expect(schema.properties.version?.const ?? schema.properties.version?.enum?.[0]).toBe(REPORT_VERSION);
    const scenario = schema.properties.scenarios?.items;
    expect(scenario?.additionalProperties).toBe(false);
    expect(scenario?.required).toEqual(expect.arrayContaining(['verdict', 'replay', 'invariants', 'unfired', 'recovery', 'jobs', 'error']));
    // Serialisable as is: it is written to report.schema.json.
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
