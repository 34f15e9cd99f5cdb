import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cellOf, columnErrorCell, whyNotPassed } from '../../src/compare/cell.js';
import { JUDGED, loadExpectations, unknownNames } from '../../src/compare/expectations.js';
import { renderCompareJunit } from '../../src/compare/junit.js';
import { renderCompareMarkdown } from '../../src/compare/markdown.js';
import { COMPARE_VERSION, type CompareReport, CompareReportSchema } from '../../src/compare/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, INTERRUPTED_LINE, interruptedReport } from '../report/fixture.js';

const [passing, failing, vacuous, harnessError] = drillReport().scenarios;

describe('a cell', () => {
  it('carries the verdict, each broken invariant with one line of evidence, and whether it was expected', () => {
    const cell = cellOf(failing!, ['pass']);
    expect(cell.verdict).toBe('fail');
    expect(cell.broken.length).toBeGreaterThan(0);
    for (const b of cell.broken) expect(b.evidence).not.toBe('');
    expect(cell.matched).toBe(false);
    expect(cellOf(failing!, ['pass', 'fail']).matched).toBe(true);
    expect(cellOf(passing!, JUDGED).why).toBeNull();
  });

  it('says in one line why it did not pass, whatever the cause', () => {
    expect(whyNotPassed(failing!)).toMatch(/^[a-z-]+: /);
    expect(whyNotPassed(vacuous!)).toMatch(/^vacuous: /);
    expect(whyNotPassed(harnessError!)).toMatch(/^error: /);
  });

  it('of a scenario interrupted before rest says so, claims nothing broken, and is not what is expected by default', () => {
    const cell = cellOf(interruptedReport().scenarios[1]!, JUDGED);
    expect(cell).toMatchObject({ verdict: 'interrupted', broken: [], why: `interrupted: ${INTERRUPTED_LINE}`, matched: false });
  });

  it('of a column that never ran is an error with the reason, unexpected by default', () => {
    const cell = columnErrorCell('crash-after-claim', 'bullmq', 'Redis did not answer at 127.0.0.1:6379', JUDGED);
    expect(cell).toMatchObject({ verdict: 'error', why: 'error: Redis did not answer at 127.0.0.1:6379', matched: false, runDir: null });
  });
});

describe('expectations', () => {
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup) step();
    cleanup = [];
  });
  const file = (text: string) => {
    const dir = tempRunDir('expect');
    cleanup.push(dir.remove);
    const path = join(dir.dir, 'expect.yaml');
    writeFileSync(path, text);
    return path;
  };

  it('default to every verdict but an error', () => {
    expect(loadExpectations(undefined).of('anything', 'anything')).toEqual(['pass', 'fail', 'vacuous', 'not_judged']);
  });

  it("are read per queue and scenario, '*' for the rest, one verdict or a list", () => {
    const expectations = loadExpectations(file("reference: { '*': pass }\nbullmq:\n  '*': [pass, fail]\n  zombie-complete: fail\n"));
    expect(expectations.of('reference', 'x')).toEqual(['pass']);
    expect(expectations.of('bullmq', 'zombie-complete')).toEqual(['fail']);
    expect(expectations.of('bullmq', 'x')).toEqual(['pass', 'fail']);
    expect(expectations.of('pg-boss', 'x')).toEqual(JUDGED);
  });

  it('refuse a verdict that does not exist, naming where', () => {
    expect(() => loadExpectations(file('reference:\n  crash-after-claim: passed\n'))).toThrow(
      /at reference\.crash-after-claim: .*one of pass, fail, vacuous, not_judged, interrupted, error/,
    );
  });

  it('name the queues and scenarios the comparison does not run', () => {
    const path = file("referense: { '*': pass }\nreference: { crash-after-clam: pass }\n");
    expect(unknownNames(path, ['reference'], ['crash-after-claim'])).toEqual(['queue referense', 'scenario crash-after-clam (under reference)']);
  });
});

describe('the comparison views', () => {
  const report: CompareReport = CompareReportSchema.parse({
    version: COMPARE_VERSION,
    tool: 'queue-drill',
    toolVersion: '0.1.0',
    command: 'queue-drill compare --queues reference,bullmq',
    file: 'scenarios.yaml',
    seed: 1,
    timeScale: 1,
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:01:00.000Z',
    durationMs: 60_000,
    exitCode: 1,
    scenarios: [passing!.name, failing!.name],
    queues: [
      {
        queue: 'reference',
        version: '0.1.0',
        description: 'r',
        needs: [],
        settings: {},
        error: null,
        durationMs: 30_000,
        report: '/x/report.json',
        summary: drillReport().summary,
      },
      {
        queue: 'bullmq',
        version: '5.81.3',
        description: 'b',
        needs: ['Redis at redis://127.0.0.1:1/'],
        settings: {},
        error: 'Redis | did not answer',
        durationMs: 5,
        report: null,
        summary: null,
      },
    ],
    cells: [
      cellOf({ ...passing!, queue: 'reference' }, JUDGED),
      cellOf({ ...failing!, queue: 'reference' }, JUDGED),
      columnErrorCell(passing!.name, 'bullmq', 'Redis | did not answer', JUDGED),
      columnErrorCell(failing!.name, 'bullmq', 'Redis | did not answer', JUDGED),
    ],
  });

  it('Markdown: one row per scenario, one column per queue, pipes in text escaped', () => {
    const md = renderCompareMarkdown(report);
    const rows = md.split('\n').filter((line) => line.startsWith(`| \`${passing!.name}\``) || line.startsWith(`| \`${failing!.name}\``));
    expect(rows).toHaveLength(2);
    for (const line of rows) expect(line.split(' | ')).toHaveLength(3);
    expect(md).toContain('could not run: Redis \\| did not answer');
    expect(md).toContain('2 cells not as expected');
  });

  it('JUnit: one testcase per cell, a failure exactly where a cell was not as expected', () => {
    const xml = renderCompareJunit(report);
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<failure /g)).toHaveLength(report.cells.filter((c) => !c.matched).length);
    expect(xml).toContain('<testsuite name="bullmq" tests="2" failures="2"');
  });
});
