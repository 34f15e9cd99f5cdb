import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellOf, columnErrorCell } from '../../src/compare/cell.js';
import { PASSED } from '../../src/compare/expectations.js';
import { renderCompareHtml } from '../../src/compare/html.js';
import { columnFolder } from '../../src/compare/run-compare.js';
import { COMPARE_VERSION, type Column, type CompareReport } from '../../src/compare/schema.js';
import { evidenceHtml, ID_MAX, shortId } from '../../src/compare/short-ids.js';
import { writeCompare } from '../../src/compare/write-compare.js';
import type { DrillReport } from '../../src/report/schema.js';
import { writeReport } from '../../src/report/write-report.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { drillReport, HOSTILE_EVIDENCE } from '../report/fixture.js';
import { BULL_ID, DEDUPE_KEY, fiveQueueReport, PGBOSS_ID, QUEUES } from './five-queues.js';

/*
 * compare.html from a fixture comparison written to disk as `compare` writes
 * it: two columns whose drills ran (their reports written where a comparison
 * puts them, one under a queue name that needs escaping and quoting) and one
 * whose server could not be reached. The page must need nothing else, escape
 * every text a process wrote, and link each cell to a file the comparison
 * wrote, at the scenario's own section.
 */

const PROCESS_QUEUE = 'process:python3 -S "q.py" <x>';

let temp: ReturnType<typeof tempRunDir>;
let dir: string;
let report: CompareReport;
let html: string;

/** A column's drill report written where runCompare puts it, and the column that points at it. */
function ranColumn(queue: string, drill: DrillReport): { column: Column; drill: DrillReport } {
  const written = writeReport(join(dir, columnFolder(queue), '2026-12-01T10-00-00.000Z'), drill);
  const column: Column = {
    queue,
    version: `${queue} 1.0`,
    description: queue,
    needs: queue === 'reference' ? [] : ['PostgreSQL at postgres://postgres@127.0.0.1:5432/postgres'],
    settings: queue === 'reference' ? {} : { leaseSeconds: 2, 'retry<limit>': 3 },
    options: {},
    error: null,
    durationMs: 15_735,
    report: written.json,
    summary: drill.summary,
  };
  return { column, drill };
}

beforeAll(() => {
  temp = tempRunDir('compare-html');
  dir = resolve(temp.dir, 'compare-runs', '2026-12-01T10-00-00.000Z');
  const columns = [ranColumn('reference', drillReport()), ranColumn(PROCESS_QUEUE, drillReport())];
  const unreachable: Column = {
    queue: 'bullmq',
    version: '5.81.3',
    description: 'b',
    needs: ['Redis at redis://127.0.0.1:1/'],
    settings: {},
    options: {},
    error: 'Redis <did not> answer & "refused"',
    durationMs: 5,
    report: null,
    summary: null,
  };
  const scenarios = drillReport().scenarios.map((s) => s.name);
  report = {
    version: COMPARE_VERSION,
    tool: 'queue-drill',
    toolVersion: '0.1.0',
    command: `queue-drill compare --queues 'reference,${PROCESS_QUEUE},bullmq'`,
    file: 'scenarios.yaml',
    seed: 1,
    timeScale: 2,
    repeat: 1,
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:01:00.000Z',
    durationMs: 60_000,
    exitCode: 1,
    scenarios,
    queues: [...columns.map((c) => c.column), unreachable],
    cells: [
      ...columns.flatMap(({ column, drill }) => drill.scenarios.map((s) => cellOf([{ ...s, queue: column.queue }], PASSED))),
      ...scenarios.map((name) => columnErrorCell(name, 'bullmq', unreachable.error!, PASSED)),
    ],
  };
  writeCompare(dir, report);
  html = readFileSync(join(dir, 'compare.html'), 'utf8');
});
afterAll(() => temp.remove());

/** Every href on the page. */
function hrefs(page: string): string[] {
  return [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

/** The matrix's cell of a scenario in a column (its <td>). */
function cellHtml(scenario: string, column: number): string {
  const row = html.split('<tr>').find((r) => r.startsWith(`<th scope="row"><code>${scenario}</code></th>`))!;
  return row.split('<td')[column + 1]!;
}

describe('compare.html', () => {
  it('is written beside compare.json, one page that needs nothing else: no stylesheet, script, font or image from anywhere', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<link\b|<script[^>]+src=|<img\b|@import|url\(\s*['"]?(?:https?:)?\/\//i);
    expect(hrefs(html).filter((href) => /^[a-z]+:/i.test(href) || href.startsWith('//'))).toEqual([]);
    expect(html).toContain('<style>');
    expect(html.length).toBeLessThan(200_000);
  });

  it('escapes every text a process or a user wrote: no markup, no control characters, no lone surrogates get through', () => {
    expect(html).not.toContain('<both>');
    expect(html).toContain('&lt;both&gt; &amp; &quot;twice&quot;');
    expect(html).not.toContain('<did not>');
    expect(html).toContain('could not run: Redis &lt;did not&gt; answer &amp; &quot;refused&quot;');
    expect(html).not.toContain('<x>');
    expect(html).toContain('<code>process:python3 -S &quot;q.py&quot; &lt;x&gt;</code>');
    expect(html).not.toMatch(/[\u0000\u001b]/);
    expect(html).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(HOSTILE_EVIDENCE).toContain('\u001b');
  });

  it('says what was compared: the verdict, the seed, the time scale, the command to copy, and each column’s version, options and wall time', () => {
    expect(html).toContain(
      '<h1>queue-drill comparison: 4 scenarios × 3 queues: 2 pass, 2 fail, 0 not judged, 0 not supported, 0 flaky, 2 vacuous, 6 error; 10 cells not as expected</h1>',
    );
    expect(html).toContain('Seed <code>1</code>, every duration ×2');
    expect(html).toContain(
      `data-copy="${report.command.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}"`,
    );
    expect(html).toContain(
      '<td>reference 1.0</td><td>nothing (embedded)</td><td>-</td><td>15.7 s</td><td>1 pass, 1 fail, 1 vacuous, 0 not judged, 1 error</td>',
    );
    expect(html).toContain('<code>leaseSeconds=2</code>, <code>retry&lt;limit&gt;=3</code>');
    expect(html).toContain('<td>5.81.3</td><td>Redis at redis://127.0.0.1:1/</td>');
  });

  it('has a row per scenario and a cell per queue, each verdict by shape and word, what broke with one line of evidence, the recovery time', () => {
    for (const scenario of report.scenarios) expect(html).toContain(`<th scope="row"><code>${scenario}</code></th>`);
    const passing = cellHtml('crash_after_write', 0);
    expect(passing).toMatch(
      /^ class="cell v-pass"><span class="verdict"><svg class="shape" aria-hidden="true"><use href="#shape-pass"\/><\/svg>PASS<\/span>/,
    );
    expect(passing).toContain('<p>recovered in 1.4 s</p>');
    const failing = cellHtml('timeout_blind_retry', 0);
    expect(failing).toContain('<use href="#shape-fail"/></svg>FAIL</span>');
    expect(failing).toContain('<li><code>no-duplicate-effect</code>: <span class="line">ledger: charge key=ab12cd34:charge');
    expect(failing).toContain('<li><code>review-routing</code>: <span class="line">job 1: unknown outcome of non-idempotent charge');
    expect(cellHtml('crash_after_verify', 0)).toContain('<p class="line">vacuous: crash at after_verify');
    // Each shape the page uses is drawn on the page.
    for (const shape of new Set([...html.matchAll(/<use href="#(shape-[a-z_]+)"/g)].map((m) => m[1]!)))
      expect(html).toContain(`<symbol id="${shape}"`);
  });

  it('marks a cell that is not what was expected, saying what was', () => {
    const error = cellHtml('world_unreachable', 0);
    expect(error).toMatch(/^ class="cell v-error unexpected">/);
    expect(error).toContain('not as expected (expected pass)');
    expect(cellHtml('crash_after_write', 0)).not.toContain('unexpected');
    const unreachable = cellHtml('crash_after_write', 2);
    expect(unreachable).toContain('<p class="line">error: Redis &lt;did not&gt; answer');
    expect(unreachable).not.toContain('<a ');
  });

  it("links each cell that ran to its scenario in its column's own report.html, by a path that resolves to a file the comparison wrote", () => {
    const links = hrefs(html).filter((href) => !href.startsWith('#'));
    // A link per column's report in the queues table, and one per cell of each column that ran.
    expect(links).toHaveLength(2 + 2 * report.scenarios.length);
    for (const link of links) {
      const [path, anchor] = link.split('#');
      expect(path).not.toMatch(/^\//);
      const file = join(dir, ...path!.split('/').map(decodeURIComponent));
      expect(existsSync(file), link).toBe(true);
      expect(file.endsWith('report.html')).toBe(true);
      if (anchor !== undefined) expect(readFileSync(file, 'utf8')).toContain(`<section id="${anchor}" `);
    }
    // The cell of the second scenario links to the second scenario's section.
    expect(cellHtml('timeout_blind_retry', 1)).toMatch(
      /<a class="go" href="process-python3--S-q\.py-x\/2026-12-01T10-00-00\.000Z\/report\.html#scenario-2">/,
    );
    const target = readFileSync(join(dir, 'process-python3--S-q.py-x', '2026-12-01T10-00-00.000Z', 'report.html'), 'utf8');
    expect(target.split('<section id="scenario-2" ')[1]).toMatch(
      /^class="scenario v-fail"><h2><span class="verdict">FAIL<\/span> timeout_blind_retry/,
    );
  });

  it('shows a scenario a column never reached as never ran', () => {
    const cut: CompareReport = { ...report, cells: report.cells.filter((c) => !(c.queue === 'reference' && c.scenario === 'world_unreachable')) };
    const page = renderCompareHtml(cut, dir);
    const row = page.split('<tr>').find((r) => r.startsWith('<th scope="row"><code>world_unreachable</code></th>'))!;
    expect(row.split('<td')[1]).toBe(' class="cell"><span class="muted">never ran</span></td>');
  });

  it('is the same page for the same comparison', () => {
    expect(renderCompareHtml(report, dir)).toBe(html);
  });
});

describe('a long id in a cell', () => {
  it('is shown as its head and tail, whole in the title of the <abbr> that holds it', () => {
    expect(BULL_ID).toHaveLength(90);
    expect(shortId(BULL_ID)).toBe('bull:qd-dr…0000-017');
    expect(shortId(PGBOSS_ID)).toBe('0b9f6e3c-2…8e1f2a6b');
    expect(evidenceHtml(`job ${BULL_ID} held by w1#2`)).toBe(`job <abbr class="id" title="${BULL_ID}">bull:qd-dr…0000-017</abbr> held by w1#2`);
  });

  it("keeps what is not the id outside it: a key's name before =, a named suffix, the sentence's colon", () => {
    expect(evidenceHtml(`ledger: charge key=${PGBOSS_ID}:charge applied`)).toBe(
      `ledger: charge key=<abbr class="id" title="${PGBOSS_ID}">0b9f6e3c-2…8e1f2a6b</abbr>:charge applied`,
    );
    expect(evidenceHtml(`job ${DEDUPE_KEY}: stuck.`)).toBe(`job <abbr class="id" title="${DEDUPE_KEY}">sha256:9f8…b0f00a08</abbr>: stuck.`);
  });

  it('leaves alone what is short, a long name without a digit, and a URL: they wrap', () => {
    const id = `${'a'.repeat(ID_MAX - 1)}1`;
    const line = `job 17 of ${id} at 2026-12-01T10:00:00.000Z: coordinator-crash-during-compensation, postgres://postgres@127.0.0.1:5432/postgres`;
    expect(evidenceHtml(line)).toBe(line);
  });

  it('is escaped, in the text and in the title', () => {
    expect(evidenceHtml(`<b>${BULL_ID}</b> & "x"`)).toBe(
      `&lt;b&gt;<abbr class="id" title="${BULL_ID}">bull:qd-dr…0000-017</abbr>&lt;/b&gt; &amp; &quot;x&quot;`,
    );
    expect(evidenceHtml(HOSTILE_EVIDENCE)).not.toMatch(/[<>\u0000\u001b]/);
  });

  it('in compare.html: every long id of an evidence line shortened, the matrix laid out fixed, a column each', () => {
    const page = renderCompareHtml(fiveQueueReport(dir), dir);
    expect(page).toContain(`<abbr class="id" title="${BULL_ID}">bull:qd-dr…0000-017</abbr>`);
    expect(page).not.toContain(`>${BULL_ID}`);
    expect(page).toContain(`<table class="matrix" style="--queues: 5"><colgroup><col class="scenario">${'<col>'.repeat(QUEUES.length)}</colgroup>`);
  });
});
