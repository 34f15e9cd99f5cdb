import { dirname, relative, sep } from 'node:path';
import { escapeHtml as h } from '../report/html/escape.js';
import { BASE_STYLE, COPY_SCRIPT } from '../report/html/page-assets.js';
import { anchorOf } from '../report/html/render-html.js';
import { VERDICT_WORD } from '../report/html/verdict-word.js';
import { cellsHeadline, columnCounts } from './column-counts.js';
import { CELL_VERDICTS, type Cell, type CellVerdict, type Column, type CompareReport } from './schema.js';
import { evidenceHtml } from './short-ids.js';

/*
 * compare.html: the comparison as one page that needs nothing else (no
 * network: the style, the verdicts' shapes and the copy button's few lines
 * are inline, like report.html's). What was compared first (each queue's
 * version, the servers it needs, the options its adapter set, its wall time),
 * then the scenario × queue matrix: each cell's verdict by shape and word as
 * well as colour, each invariant it broke with one line of evidence (an
 * inconclusive cell: what starvation explains, naming the starved process), its
 * recovery time, whether it was what was expected, and a link to that
 * scenario in its column's own report.html, by a path relative to this page,
 * so the comparison's directory can be moved or archived whole. A long id in
 * a cell's evidence is shortened, whole in its title (./short-ids.ts).
 */

/** A cell's verdict in words: a scenario's as report.html writes it, or flaky (its runs disagreed). */
const WORD: Record<CellVerdict, string> = { ...VERDICT_WORD, flaky: 'FLAKY' };

/** Each verdict's shape, drawn in a 12×12 box: a disc, a cross, a hollow triangle, an hourglass, a bar, a ring, a square, a diamond, a zigzag. */
const SHAPE: Record<CellVerdict, string> = {
  pass: '<circle cx="6" cy="6" r="5"/>',
  fail: '<path d="M1 1 11 11M11 1 1 11" class="stroke"/>',
  vacuous: '<path d="M6 1 11 11H1Z" class="hollow"/>',
  inconclusive: '<path d="M1 1H11L1 11H11Z" class="hollow"/>',
  not_judged: '<rect x="1" y="5" width="10" height="2"/>',
  not_supported: '<circle cx="6" cy="6" r="5" class="hollow"/>',
  interrupted: '<rect x="1.5" y="1.5" width="9" height="9"/>',
  error: '<path d="M6 0 12 6 6 12 0 6Z"/>',
  flaky: '<path d="M1 4 4 1 7 4 10 1M1 11 4 8 7 11 10 8" class="stroke"/>',
};

/*
 * The matrix fits the page's 1,280 px with five queues: its columns are laid
 * out fixed (the scenario's a set width, the queues' equal shares of the rest),
 * so no long word in one cell can widen its column and push the next off the
 * page; every text in a cell wraps, anywhere when it must, and long ids are
 * shortened (./short-ids.ts). Past a column's smallest useful width (--queues
 * columns of 180 px) the matrix scrolls sideways inside its box, its scenario
 * names held in view, instead of squeezing cells to a few characters.
 */
const COMPARE_STYLE = `
.shape { width: 12px; height: 12px; vertical-align: -1px; margin-right: 4px; fill: currentColor; stroke: currentColor; }
.shape .stroke { stroke-width: 2.5; fill: none; } .shape .hollow { fill: none; stroke-width: 1.5; }
table.matrix { table-layout: fixed; min-width: calc(11rem + var(--queues, 1) * 180px); } table.matrix col.scenario { width: 11rem; }
.v-flaky .verdict { color: var(--warn); border-style: dashed; }
table th code { word-break: normal; overflow-wrap: break-word; }
table.matrix th[scope=row] { position: sticky; left: 0; z-index: 1; background: #fff; }
td.cell { overflow-wrap: anywhere; } td.cell code, table.queues td code { word-break: normal; overflow-wrap: anywhere; }
table.queues td { overflow-wrap: break-word; } table.queues td a { white-space: nowrap; }
td.cell ul { margin: 4px 0; padding-left: 18px; } td.cell p { margin: 4px 0; }
td.cell .line { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; } td.cell .go { display: block; margin-top: 4px; }
abbr.id { text-decoration: underline dotted; cursor: help; white-space: nowrap; }
td.unexpected { outline: 3px dashed var(--bad); outline-offset: -3px; } .unexpected-mark { color: var(--bad); }
.meta, .muted { color: var(--muted); font-size: 13px; } .wide { overflow-x: auto; }
ul.legend { display: flex; flex-wrap: wrap; gap: 4px 18px; list-style: none; padding: 0; }
`;

/** The comparison as one self-contained HTML page, for the directory `dir` it is written to (its links are relative to it). */
export function renderCompareHtml(report: CompareReport, dir: string): string {
  const verdict = cellsHeadline(report.cells);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const title = `${plural(report.scenarios.length, 'scenario')} × ${plural(report.queues.length, 'queue')}: ${verdict}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>queue-drill comparison: ${h(title)}</title><style>${BASE_STYLE}${COMPARE_STYLE}</style></head><body>`,
    shapeSymbols(),
    header(report, title),
    queuesTable(report, dir),
    matrix(report, dir),
    legend(),
    `<script>${COPY_SCRIPT}</script></body></html>`,
    '',
  ].join('\n');
}

function shapeSymbols(): string {
  const symbols = CELL_VERDICTS.map((v) => `<symbol id="shape-${v}" viewBox="0 0 12 12">${SHAPE[v]}</symbol>`);
  return `<svg width="0" height="0" style="position:absolute" aria-hidden="true">${symbols.join('')}</svg>`;
}

function verdictBadge(verdict: CellVerdict): string {
  return `<span class="verdict"><svg class="shape" aria-hidden="true"><use href="#shape-${verdict}"/></svg>${WORD[verdict]}</span>`;
}

function header(report: CompareReport, title: string): string {
  const scale = report.timeScale === 1 ? '' : `, every duration ×${report.timeScale}`;
  return (
    `<header><h1>queue-drill comparison: ${h(title)}</h1>` +
    `<p>Seed <code>${report.seed}</code>${h(scale)}, scenarios file <code>${h(report.file)}</code>, ${h(report.startedAt)} to ${h(report.finishedAt)} ` +
    `(${seconds(report.durationMs)}), exit code ${report.exitCode}, queue-drill ${h(report.toolVersion)}.</p>` +
    `<div class="cmd"><code>${h(report.command)}</code><button type="button" class="copy" data-copy="${h(report.command)}">copy</button></div></header>`
  );
}

/** The path, relative to the page, of a column's report.html, or null when the column never ran. */
export function columnReportHref(column: Column, dir: string): string | null {
  if (column.report === null) return null;
  const path = relative(dir, dirname(column.report))
    .split(sep)
    .filter((part) => part !== '');
  return [...path.map(encodeURIComponent), 'report.html'].join('/');
}

function queuesTable(report: CompareReport, dir: string): string {
  const rows = report.queues.map((column) => {
    const settings = [
      ...Object.entries(column.options).map(([k, v]) => `<code>${h(`--queue-option ${k}=${String(v)}`)}</code>`),
      ...Object.entries(column.settings).map(([k, v]) => `<code>${h(`${k}=${String(v)}`)}</code>`),
    ];
    const s = column.summary;
    const counts = s ? columnCounts(s) : `could not run: ${column.error ?? 'unknown'}`;
    const href = columnReportHref(column, dir);
    return (
      `<tr><th scope="row"><code>${h(column.queue)}</code></th><td>${h(column.version ?? '?')}</td>` +
      `<td>${column.needs.length > 0 ? h(column.needs.join('; ')) : 'nothing (embedded)'}</td><td>${settings.length > 0 ? settings.join(', ') : '-'}</td>` +
      `<td>${seconds(column.durationMs)}</td><td>${h(counts)}</td><td>${href !== null ? `<a href="${h(href)}">report.html</a>` : '-'}</td></tr>`
    );
  });
  return (
    '<section><h2>The queues</h2><div class="wide"><table class="queues"><thead><tr><th>queue</th><th>version</th><th>needs</th>' +
    "<th>its options and its adapter's settings</th><th>wall time</th><th>verdicts</th><th>its drill report</th></tr></thead>" +
    `<tbody>${rows.join('')}</tbody></table></div></section>`
  );
}

function matrix(report: CompareReport, dir: string): string {
  const head = report.queues.map((column) => `<th scope="col"><code>${h(column.queue)}</code></th>`).join('');
  const rows = report.scenarios.map((scenario) => {
    const cells = report.queues.map((column) => {
      const ofColumn = report.cells.filter((c) => c.queue === column.queue);
      const index = ofColumn.findIndex((c) => c.scenario === scenario);
      const cell = ofColumn[index];
      // The column's report lists every round of scenarios in turn (--repeat), and a cell its runs in that order.
      const round = Math.max(0, cell?.runs.findIndex((run) => run.runDir === cell.runDir) ?? 0);
      return cellHtml(cell, column, round * ofColumn.length + index, dir);
    });
    return `<tr><th scope="row"><code>${h(scenario)}</code></th>${cells.join('')}</tr>`;
  });
  return (
    '<section><h2>The matrix</h2><p class="meta">Each cell: the verdict, each invariant that broke with one line of its evidence, ' +
    "the recovery time (from a kill to the job settled again, the longest in the scenario), and that scenario in its column's own report.</p>" +
    `<div class="wide"><table class="matrix" style="--queues: ${report.queues.length}"><colgroup><col class="scenario">` +
    `${'<col>'.repeat(report.queues.length)}</colgroup><thead><tr><th>scenario</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`
  );
}

function cellHtml(cell: Cell | undefined, column: Column, index: number, dir: string): string {
  // A scenario a column never reached (the comparison was interrupted first) has no cell.
  if (cell === undefined) return '<td class="cell"><span class="muted">never ran</span></td>';
  const expected = cell.matched ? '' : ` <strong class="unexpected-mark">not as expected (expected ${h(cell.expected.join(' or '))})</strong>`;
  // An inconclusive cell's liveness breaches are starvation's doing: its line says what starvation explains, instead of a list of breaches.
  const inconclusive = cell.verdict === 'inconclusive';
  const broken = inconclusive
    ? []
    : cell.broken.map((b) => `<li><code>${h(b.id)}</code>: <span class="line">${evidenceHtml(b.evidence)}</span></li>`);
  const why = (broken.length === 0 || cell.verdict === 'flaky') && cell.why !== null ? `<p class="line">${evidenceHtml(cell.why)}</p>` : '';
  const unchecked =
    cell.verdict === 'pass' && cell.notJudged.length > 0
      ? `<p class="muted">not judged: ${cell.notJudged.map((n) => `<code title="${h(n.reason)}">${h(n.id)}</code>`).join(', ')}</p>`
      : '';
  const recovery = cell.recoveryMs !== null ? `<p>recovered in ${seconds(cell.recoveryMs)}</p>` : '';
  const href = columnReportHref(column, dir);
  const link = href !== null && cell.runDir !== null ? `<a class="go" href="${h(`${href}#${anchorOf(index)}`)}">in its report</a>` : '';
  return (
    `<td class="cell v-${cell.verdict}${cell.matched ? '' : ' unexpected'}">${verdictBadge(cell.verdict)}${expected}` +
    `${broken.length > 0 ? `<ul>${broken.join('')}</ul>` : ''}${why}${unchecked}${recovery}${link}</td>`
  );
}

function legend(): string {
  const items = CELL_VERDICTS.map((v) => `<li class="v-${v}">${verdictBadge(v)}</li>`);
  return `<details class="legend-box"><summary>Legend</summary><ul class="legend">${items.join('')}</ul></details>`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
