import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cellOf, columnErrorCell, whyNotPassed } from '../../src/compare/cell.js';
import { loadExpectations, PASSED, unknownNames } from '../../src/compare/expectations.js';
import { renderCompareHtml } from '../../src/compare/html.js';
import { renderCompareJunit } from '../../src/compare/junit.js';
import { renderCompareMarkdown } from '../../src/compare/markdown.js';
import { COMPARE_VERSION, type CompareReport, CompareReportSchema } from '../../src/compare/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, INCONCLUSIVE_LINES, INTERRUPTED_LINE, inconclusiveReport, interruptedReport } from '../report/fixture.js';

const [passing, failing, vacuous, harnessError] = drillReport().scenarios;

describe('a cell', () => {
  it('carries the verdict, each broken invariant with one line of evidence, and whether it was expected', () => {
    const cell = cellOf([failing!], ['pass']);
    expect(cell.verdict).toBe('fail');
    expect(cell.broken.length).toBeGreaterThan(0);
    for (const b of cell.broken) expect(b.evidence).not.toBe('');
    expect(cell.matched).toBe(false);
    expect(cellOf([failing!], ['pass', 'fail']).matched).toBe(true);
    expect(cellOf([passing!], PASSED).why).toBeNull();
  });

  it('says in one line why it did not pass, whatever the cause', () => {
    expect(whyNotPassed(failing!)).toMatch(/^[a-z-]+: /);
    expect(whyNotPassed(vacuous!)).toMatch(/^vacuous: /);
    expect(whyNotPassed(harnessError!)).toMatch(/^error: /);
  });

  it('of a scenario interrupted before rest says so, claims nothing broken, and is not what is expected by default', () => {
    const cell = cellOf([interruptedReport().scenarios[1]!], PASSED);
    expect(cell).toMatchObject({ verdict: 'interrupted', broken: [], why: `interrupted: ${INTERRUPTED_LINE}`, matched: false });
  });

  it('of a scenario the machine starved says inconclusive with its first line, names no breach as the why, and is not what is expected by default', () => {
    const starved = inconclusiveReport().scenarios[1]!;
    const cell = cellOf([starved], PASSED);
    expect(cell).toMatchObject({ verdict: 'inconclusive', why: `inconclusive (starved): ${INCONCLUSIVE_LINES[0]}`, matched: false });
    expect(cellOf([starved], ['pass', 'inconclusive']).matched).toBe(true);
  });

  it('of a column that never ran is an error with the reason, unexpected by default', () => {
    const cell = columnErrorCell('crash-after-claim', 'bullmq', 'Redis did not answer at 127.0.0.1:6379', PASSED);
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

  it('default to a pass: without a file, the exit code follows what the matrix found', () => {
    expect(loadExpectations(undefined).of('anything', 'anything')).toEqual(['pass']);
  });

  it("are read per queue and scenario, '*' for the rest, one verdict or a list", () => {
    const expectations = loadExpectations(file("reference: { '*': pass }\nbullmq:\n  '*': [pass, fail]\n  zombie-complete: fail\n"));
    expect(expectations.of('reference', 'x')).toEqual(['pass']);
    expect(expectations.of('bullmq', 'zombie-complete')).toEqual(['fail']);
    expect(expectations.of('bullmq', 'x')).toEqual(['pass', 'fail']);
    expect(expectations.of('pg-boss', 'x')).toEqual(PASSED);
  });

  it('refuse a verdict that does not exist, naming where', () => {
    expect(() => loadExpectations(file('reference:\n  crash-after-claim: passed\n'))).toThrow(
      /at reference\.crash-after-claim: .*one of pass, fail, vacuous, inconclusive, not_judged, not_supported, interrupted, error, flaky/,
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
    repeat: 1,
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
        options: {},
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
        options: {},
        error: 'Redis | did not answer',
        durationMs: 5,
        report: null,
        summary: null,
      },
    ],
    cells: [
      cellOf([{ ...passing!, queue: 'reference' }], PASSED),
      cellOf([{ ...failing!, queue: 'reference' }], PASSED),
      columnErrorCell(passing!.name, 'bullmq', 'Redis | did not answer', PASSED),
      columnErrorCell(failing!.name, 'bullmq', 'Redis | did not answer', PASSED),
    ],
  });

  it('Markdown: one row per scenario, one column per queue, pipes in text escaped', () => {
    const md = renderCompareMarkdown(report);
    const rows = md.split('\n').filter((line) => line.startsWith(`| \`${passing!.name}\``) || line.startsWith(`| \`${failing!.name}\``));
    expect(rows).toHaveLength(2);
    for (const line of rows) expect(line.split(' | ')).toHaveLength(3);
    expect(md).toContain('could not run: Redis \\| did not answer');
    expect(md).toContain('1 pass, 1 fail, 0 not judged, 0 not supported, 0 flaky, 2 error; 3 cells not as expected');
  });

  it('JUnit: one testcase per cell, a failure exactly where a cell was not as expected', () => {
    const xml = renderCompareJunit(report);
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<failure /g)).toHaveLength(report.cells.filter((c) => !c.matched).length);
    expect(xml).toContain('<testsuite name="bullmq" tests="2" failures="2"');
  });
});

describe('the comparison views, with a cell the machine starved', () => {
  const [passed, starved] = inconclusiveReport().scenarios;
  const base = {
    version: COMPARE_VERSION,
    tool: 'queue-drill',
    toolVersion: '0.1.0',
    command: 'queue-drill compare --queues reference',
    file: 'scenarios.yaml',
    seed: 1,
    timeScale: 1,
    repeat: 1,
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:01:00.000Z',
    durationMs: 60_000,
    scenarios: [passed!.name, starved!.name],
    queues: [
      {
        queue: 'reference',
        version: '0.1.0',
        description: 'r',
        needs: [],
        settings: {},
        options: {},
        error: null,
        durationMs: 30_000,
        report: null,
        summary: inconclusiveReport().summary,
      },
    ],
  } as const;
  /** The comparison, its starved cell expected as given. */
  const compare = (expected: Parameters<typeof cellOf>[1]): CompareReport =>
    CompareReportSchema.parse({
      ...base,
      exitCode: expected === PASSED ? 1 : 0,
      cells: [cellOf([passed!], PASSED), cellOf([starved!], expected)],
    });

  it('Markdown: a cell judged on the runs the machine did not starve says how many it did not count', () => {
    const report = CompareReportSchema.parse({
      ...base,
      exitCode: 0,
      cells: [cellOf([passed!, { ...starved!, name: passed!.name, seed: 2 }], PASSED), cellOf([starved!], ['inconclusive'])],
    });
    expect(renderCompareMarkdown(report)).toContain(`| \`${passed!.name}\` | ✅ pass (1 of 2 runs starved, not counted) · 1.4 s |`);
  });

  it('Markdown: the cell says inconclusive, not what broke; the headline and the column count it; its line names the starved span', () => {
    const md = renderCompareMarkdown(compare(PASSED));
    expect(md).toContain(
      '1 pass, 0 fail, 0 not judged, 0 not supported, 0 flaky, 1 inconclusive (the machine starved them); 1 cell not as expected**',
    );
    expect(md).toContain('| 1 pass, 0 fail, 0 vacuous, 1 inconclusive (starved), 0 not judged, 0 error |');
    expect(md).toContain('| `slow_machine` | ⏳ inconclusive (starved) **(unexpected)** |');
    expect(md).toContain(
      '- `reference` × `slow_machine`: ⏳ inconclusive (starved) (unexpected)\n  - inconclusive (starved): no-lost-job: the drill stopped',
    );
    expect(md).toContain('the worst: w1#2 was not run for 510 ms');
    expect(md).not.toContain('`no-lost-job`:');
  });

  it('JUnit: an inconclusive cell not expected is an <error>, not a <failure>; one expected is skipped, never passed', () => {
    const unexpected = renderCompareJunit(compare(PASSED));
    expect(unexpected).toContain('<testsuite name="reference" tests="2" failures="0" errors="1" skipped="0"');
    expect(unexpected).toMatch(/<error message="inconclusive: inconclusive \(starved\): no-lost-job: [^"]*" type="inconclusive">/);
    const expected = renderCompareJunit(compare(['inconclusive']));
    expect(expected).toContain('<testsuite name="reference" tests="2" failures="0" errors="0" skipped="1"');
    expect(expected).toMatch(/<skipped message="inconclusive: inconclusive \(starved\): no-lost-job: /);
  });

  it('HTML: the cell has a verdict shape and word of its own, its line naming the starved span, no breach listed; the headline counts it', () => {
    const html = renderCompareHtml(compare(PASSED), '/nowhere');
    expect(html).toContain(
      '<h1>queue-drill comparison: 2 scenarios × 1 queue: 1 pass, 0 fail, 0 not judged, 0 not supported, 0 flaky, 1 inconclusive (the machine starved them); 1 cell not as expected</h1>',
    );
    expect(html).toContain('<td>1 pass, 0 fail, 0 vacuous, 1 inconclusive (starved), 0 not judged, 0 error</td>');
    const cell = html.split('<tr>').find((r) => r.startsWith('<th scope="row"><code>slow_machine</code></th>'))!;
    expect(cell).toContain(
      '<td class="cell v-inconclusive unexpected"><span class="verdict"><svg class="shape" aria-hidden="true"><use href="#shape-inconclusive"/></svg>INCONCLUSIVE</span>',
    );
    expect(cell).toContain('<p class="line">inconclusive (starved): no-lost-job: the drill stopped before rest');
    expect(cell).not.toContain('<code>no-lost-job</code>');
    expect(html).toContain('<symbol id="shape-inconclusive"');
    // A first line with markup in it stays text.
    const hostile = { ...starved!, inconclusive: [...INCONCLUSIVE_LINES].reverse() };
    const page = renderCompareHtml(
      CompareReportSchema.parse({ ...compare(PASSED), cells: [cellOf([passed!], PASSED), cellOf([hostile], PASSED)] }),
      '/nowhere',
    );
    expect(page).toContain('| &lt;i&gt;*&lt;/i&gt;</p>');
    expect(page).not.toContain('<i>');
  });
});

describe('a cell that says exactly what it checked', () => {
  const unjudged = (report: typeof passing) => {
    const invariants = report!.invariants.map((v) =>
      v.id === 'single-holder' ? { ...v, status: 'not_judged' as const, judged: 0, evidence: [], note: 'the queue records no refused write' } : v,
    );
    return { ...report!, invariants };
  };

  it('passes, listing what it could not judge, when that is not what its scenario exists to check', () => {
    const cell = cellOf([unjudged(passing)], PASSED);
    expect(cell).toMatchObject({
      verdict: 'pass',
      matched: true,
      notJudged: [{ id: 'single-holder', reason: 'the queue records no refused write' }],
    });
  });

  it('is not judged, never a pass, when an invariant its scenario exists to check could not be judged', () => {
    const report = { ...unjudged(passing), checks: ['single-holder' as const] };
    const line = 'single-holder, which this scenario exists to check: the queue records no refused write';
    const run = { ...report, unjudgedChecks: [line], verdict: 'not_judged' as const };
    const cell = cellOf([run], PASSED);
    expect(cell).toMatchObject({ verdict: 'not_judged', matched: false, checks: ['single-holder'], why: `not judged: ${line}` });
  });

  it('is flaky, with every run, when its runs disagree', () => {
    const cell = cellOf(
      [
        { ...passing!, seed: 1 },
        { ...failing!, name: passing!.name, seed: 2 },
      ],
      PASSED,
    );
    expect(cell.verdict).toBe('flaky');
    expect(cell.matched).toBe(false);
    expect(cell.runs.map((r) => [r.seed, r.verdict])).toEqual([
      [1, 'pass'],
      [2, 'fail'],
    ]);
    expect(cell.why).toMatch(/^flaky: seed 1 pass, seed 2 fail; [a-z-]+: /);
    expect(cellOf([passing!, passing!], PASSED).verdict).toBe('pass');
  });

  // A starved run says nothing of the queue: it must not make the queue look flaky, nor hide the runs that were judged.
  it('is what its judged runs agree on when the machine starved one, and says which run was not counted', () => {
    const starved = { ...inconclusiveReport().scenarios[1]!, name: passing!.name, seed: 3 };
    const cell = cellOf([{ ...passing!, seed: 1 }, { ...passing!, seed: 2 }, starved], PASSED);
    expect(cell).toMatchObject({ verdict: 'pass', matched: true });
    expect(cell.why).toBe(`judged on 2 of 3 runs (seed 1 pass, seed 2 pass, seed 3 inconclusive); inconclusive (starved): ${INCONCLUSIVE_LINES[0]}`);
    const failed = cellOf([starved, { ...failing!, name: passing!.name, seed: 1 }], PASSED);
    expect(failed.verdict).toBe('fail');
    expect(failed.broken.length).toBeGreaterThan(0);
    expect(failed.why).toMatch(/^judged on 1 of 2 runs \(seed 3 inconclusive, seed 1 fail\); [a-z-]+: /);
    // Judged runs that disagree are flaky still; a cell of starved runs alone is inconclusive.
    expect(cellOf([starved, { ...passing!, seed: 1 }, { ...failing!, name: passing!.name, seed: 2 }], PASSED).verdict).toBe('flaky');
    expect(cellOf([starved, { ...starved, seed: 4 }], PASSED).verdict).toBe('inconclusive');
  });
});
