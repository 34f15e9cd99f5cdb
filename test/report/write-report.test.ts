import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPORT_VERSION, ReportError } from '../../src/report/schema.js';
import { LATEST_LINK, readReport, reportFiles, writeReport } from '../../src/report/write-report.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, notJudgedReport } from './fixture.js';

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('report');
});
afterEach(() => temp.remove());

/** The ReportError a call throws (fails the test if it throws nothing or something else). */
function reportErrorOf(call: () => unknown): ReportError {
  try {
    call();
  } catch (error) {
    if (error instanceof ReportError) return error;
    throw error;
  }
  throw new Error('expected a ReportError, but nothing was thrown');
}

describe('writeReport', () => {
  it('writes report.json, report.md, junit.xml and report.schema.json, and points latest at the run', () => {
    const runDir = join(temp.dir, 'drill-runs', '2026-08-25T10-00-00Z');
    mkdirSync(runDir, { recursive: true });
    const report = drillReport();
    const files = writeReport(runDir, report);

    expect(files).toEqual({
      json: join(runDir, 'report.json'),
      markdown: join(runDir, 'report.md'),
      junit: join(runDir, 'junit.xml'),
      html: join(runDir, 'report.html'),
    });
    expect(readdirSync(runDir).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md', 'report.schema.json']);
    expect(readdirSync(runDir).sort()).toEqual(reportFiles().sort());
    const json = readFileSync(files.json, 'utf8');
    expect(JSON.parse(json)).toEqual(report);
    expect(json).toContain(`\n  "version": ${REPORT_VERSION},\n`);
    expect(readFileSync(files.markdown, 'utf8')).toMatch(/^# queue-drill recovery report\n/);
    expect(readFileSync(files.junit, 'utf8')).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(JSON.parse(readFileSync(join(runDir, 'report.schema.json'), 'utf8'))).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
    });

    const latest = join(temp.dir, 'drill-runs', LATEST_LINK);
    expect(lstatSync(latest).isSymbolicLink()).toBe(true);
    // Relative, so the drill-runs folder can be moved and the link still resolves.
    expect(readlinkSync(latest)).toBe('2026-08-25T10-00-00Z');
    expect(realpathSync(latest)).toBe(realpathSync(runDir));
    expect(readReport(join(latest, 'report.json'))).toEqual(report);
  });

  it('moves latest to the newest run on a second run, leaving no temporary files behind', () => {
    const runs = join(temp.dir, 'drill-runs');
    const first = join(runs, 'run-1');
    const second = join(runs, 'run-2');
    writeReport(first, drillReport());
    expect(readlinkSync(join(runs, LATEST_LINK))).toBe('run-1');
    writeReport(second, { ...drillReport(), seed: 7 });
    expect(readlinkSync(join(runs, LATEST_LINK))).toBe('run-2');
    expect(readReport(join(runs, LATEST_LINK, 'report.json')).seed).toBe(7);
    expect(readdirSync(runs).sort()).toEqual([LATEST_LINK, 'run-1', 'run-2']);
    expect(readdirSync(first).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps latest on the newest started run when an older one writes its report after it', () => {
    const runs = join(temp.dir, 'drill-runs');
    writeReport(join(runs, '2026-12-03T10-00-00.000Z-2'), drillReport());
    writeReport(join(runs, '2026-12-03T10-00-00.000Z'), { ...drillReport(), seed: 7 });
    expect(readlinkSync(join(runs, LATEST_LINK))).toBe('2026-12-03T10-00-00.000Z-2');
    writeReport(join(runs, '2026-12-03T10-00-01.000Z'), { ...drillReport(), seed: 8 });
    expect(readlinkSync(join(runs, LATEST_LINK))).toBe('2026-12-03T10-00-01.000Z');
  });

  it('writes a report whose invariants were not judged, and reads it back unchanged', () => {
    const report = notJudgedReport();
    const files = writeReport(join(temp.dir, 'run'), report);
    expect(readReport(files.json)).toEqual(report);
    expect(readFileSync(files.markdown, 'utf8')).toContain('not judged (needs history');
    expect(readFileSync(files.junit, 'utf8')).toContain('<skipped message="not judged: needs history');
  });
});

describe('writeReport, refusing what it must not write', () => {
  it('refuses a report that does not validate, naming every problem, and writes nothing', () => {
    const runDir = join(temp.dir, 'drill-runs', 'bad');
    const report = drillReport();
    (report.scenarios[0]!.invariants[0] as { status: unknown }).status = 'no';
    (report.scenarios[1] as { replay?: string }).replay = undefined;
    const error = reportErrorOf(() => writeReport(runDir, report));
    expect(error.code).toBe('QD_REPORT_INVALID');
    expect(error.issues.map((i) => i.path)).toEqual(['scenarios[0].invariants[0].status', 'scenarios[1].replay']);
    expect(error.message).toContain('scenarios[1].replay:');
    expect(() => readdirSync(join(temp.dir, 'drill-runs'))).toThrow(/ENOENT/);
  });

  it('refuses a report that contradicts itself (a pass over a broken invariant)', () => {
    const report = drillReport();
    report.scenarios[0]!.invariants[0]!.status = 'broken';
    const error = reportErrorOf(() => writeReport(join(temp.dir, 'run'), report));
    // The summary's counts were made for the verdict as it was, so they disagree too.
    expect(error.issues.map((i) => i.path)).toEqual(['scenarios[0].verdict', 'summary.invariants.held', 'summary.invariants.broken']);
  });

  it('refuses a report whose summary counts not-judged invariants as held', () => {
    const report = notJudgedReport();
    report.summary.invariants = { held: report.summary.invariants.held + report.summary.invariants.notJudged, broken: 0, notJudged: 0 };
    const error = reportErrorOf(() => writeReport(join(temp.dir, 'run'), report));
    expect(error.code).toBe('QD_REPORT_INVALID');
    expect(error.issues.map((i) => i.path)).toEqual(['summary.invariants.held', 'summary.invariants.notJudged']);
    expect(error.message).toMatch(/summary\.invariants\.notJudged: is 0, but the scenarios count \d+/);
  });

  it('refuses to replace a latest that is a real directory, and says what to do', () => {
    const runs = join(temp.dir, 'drill-runs');
    mkdirSync(join(runs, LATEST_LINK, 'something'), { recursive: true });
    const error = reportErrorOf(() => writeReport(join(runs, 'run-1'), drillReport()));
    expect(error.code).toBe('QD_REPORT_WRITE_FAILED');
    expect(error.message).toMatch(/latest is a directory, not a link: move it away/);
    expect(readdirSync(runs).sort()).toEqual([LATEST_LINK, 'run-1']);
  });
});

describe('readReport', () => {
  function written(): string {
    return writeReport(join(temp.dir, 'run'), drillReport()).json;
  }

  it('reads back exactly the report that was written', () => {
    expect(readReport(written())).toEqual(drillReport());
  });

  it.each<{ why: string; corrupt: (text: string) => string; message: RegExp }>([
    { why: 'a file cut short', corrupt: (text) => text.slice(0, text.length / 2), message: /report\.json: not JSON .*cut short/ },
    {
      why: 'a newer version',
      corrupt: (text) => text.replace(`"version": ${REPORT_VERSION}`, `"version": ${REPORT_VERSION + 1}`),
      message: new RegExp(`report version ${REPORT_VERSION + 1} is newer than this queue-drill reads \\(${REPORT_VERSION}\\); upgrade`),
    },
    {
      why: 'an older version (v1)',
      corrupt: (text) => text.replace(`"version": ${REPORT_VERSION}`, '"version": 1'),
      message: new RegExp(`not a queue-drill report of version ${REPORT_VERSION} \\(version: 1\\)`),
    },
    {
      why: 'no version at all',
      corrupt: (text) => text.replace(`"version": ${REPORT_VERSION},`, ''),
      message: new RegExp(`not a queue-drill report of version ${REPORT_VERSION} \\(version: missing\\)`),
    },
    {
      why: 'a wrong type deep inside',
      corrupt: (text) => text.replace('"status": "held"', '"status": true'),
      message: /report\.json: not a valid queue-drill report:\n {2}scenarios\[0\]\.invariants\[0\]\.status: /,
    },
    { why: 'a v1 job id (a number)', corrupt: (text) => text.replace('"id": "1"', '"id": 1'), message: /scenarios\[0\]\.jobs\[0\]\.id: / },
    {
      why: 'a verdict edited by hand',
      corrupt: (text) => text.replace('"verdict": "fail"', '"verdict": "pass"'),
      message: /scenarios\[1\]\.verdict: is pass, but the scenario's contents make it fail/,
    },
  ])('rejects $why with an error naming the file and the path', ({ corrupt, message }) => {
    const file = written();
    writeFileSync(file, corrupt(readFileSync(file, 'utf8')));
    const error = reportErrorOf(() => readReport(file));
    expect(error.code).toBe('QD_BAD_REPORT_FILE');
    expect(error.message.startsWith(file)).toBe(true);
    expect(error.message).toMatch(message);
  });

  it('says so when the file is not there', () => {
    const file = join(temp.dir, 'nowhere', 'report.json');
    expect(() => readReport(file)).toThrow(`${file}: cannot read the report: ENOENT`);
  });
});
