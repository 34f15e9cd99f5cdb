import { cellsHeadline, columnCounts } from './column-counts.js';
import type { Cell, CellVerdict, Column, CompareReport } from './schema.js';

/*
 * compare.md: the comparison as a person reads it. First what was compared
 * (each queue, its version, the servers it needs, the options its adapter
 * set, how long its column took), then the matrix, then every cell that did
 * not pass with its one line of evidence (an inconclusive cell's: what
 * starvation explains, naming the starved process). Text from the reports is data:
 * pipes and backticks are escaped so they cannot break the table.
 */

const MARK: Record<CellVerdict, string> = {
  pass: '✅ pass',
  fail: '❌ fail',
  vacuous: '⚠️ vacuous',
  inconclusive: '⏳ inconclusive (starved)',
  not_judged: '➖ not judged',
  not_supported: '🚫 not supported',
  interrupted: '⏹️ interrupted',
  error: '💥 error',
  flaky: '🎲 flaky',
};

function mdText(value: string): string {
  return value.replace(/[\\`*_<>|[\]]/g, (c) => `\\${c}`).replace(/\s*[\r\n]+\s*/g, ' ');
}

function code(value: string): string {
  return `\`${value.replace(/`/g, "'")}\``;
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function columnLine(column: Column): string {
  const settings = [
    ...Object.entries(column.options).map(([k, v]) => code(`--queue-option ${k}=${String(v)}`)),
    ...Object.entries(column.settings).map(([k, v]) => code(`${k}=${String(v)}`)),
  ];
  const counts = column.summary ? columnCounts(column.summary) : `could not run: ${mdText(column.error ?? 'unknown')}`;
  return row([
    code(column.queue),
    mdText(column.version ?? '?'),
    column.needs.length > 0 ? mdText(column.needs.join('; ')) : 'nothing (embedded)',
    settings.length > 0 ? settings.join(', ') : '—',
    seconds(column.durationMs),
    counts,
  ]);
}

function cellText(cell: Cell | undefined): string {
  if (!cell) return '—';
  // An inconclusive cell's liveness breaches are starvation's doing, not the queue's: the cell names none as broken.
  const broken = cell.broken.length > 0 && cell.verdict !== 'inconclusive' ? `: ${cell.broken.map((b) => code(b.id)).join(', ')}` : '';
  const recovery = cell.recoveryMs !== null ? ` · ${seconds(cell.recoveryMs)}` : '';
  // A pass says what it did not check: the invariants the queue could not give the evidence for.
  const unchecked = cell.verdict === 'pass' && cell.notJudged.length > 0 ? ` (not judged: ${cell.notJudged.map((n) => code(n.id)).join(', ')})` : '';
  // Runs the machine starved are not counted in the verdict, and the cell says how many there were.
  const starved = cell.runs.filter((run) => run.verdict === 'inconclusive').length;
  const judgedOn = starved > 0 && cell.verdict !== 'inconclusive' ? ` (${starved} of ${cell.runs.length} runs starved, not counted)` : '';
  return `${MARK[cell.verdict]}${broken}${unchecked}${judgedOn}${recovery}${cell.matched ? '' : ' **(unexpected)**'}`;
}

function scaleNote(k: number): string {
  return k === 1 ? '' : `, every duration × ${k}`;
}

/** The comparison as GitHub-flavoured Markdown. */
export function renderCompareMarkdown(report: CompareReport): string {
  const out = [
    '# queue-drill comparison',
    '',
    `**${report.scenarios.length} scenarios × ${report.queues.length} queues, seed ${report.seed}${scaleNote(report.timeScale)}: ` +
      `${cellsHeadline(report.cells)}** (exit code ${report.exitCode})`,
    '',
    '```sh',
    report.command,
    '```',
    '',
    `Run ${report.startedAt} to ${report.finishedAt} (${seconds(report.durationMs)}) with queue-drill ${mdText(report.toolVersion)} on ${code(report.file)}.`,
    '',
    "The same matrix as one page, each cell linked to its column's own drill report: [compare.html](compare.html).",
    '',
    '## The queues',
    '',
    row(['Queue', 'Version', 'Needs', "Its options and its adapter's settings", 'Wall time', 'Verdicts']),
    row(['---', '---', '---', '---', '---', '---']),
    ...report.queues.map(columnLine),
    '',
    '## The matrix',
    '',
    'Each cell: the verdict, the invariants that broke (a pass: those it could not judge), and the recovery time ' +
      `(from a kill to the job settled again, the longest in the scenario)${report.repeat > 1 ? `; each cell ran ${report.repeat} times, one seed each` : ''}.`,
    '',
    row(['Scenario', ...report.queues.map((q) => code(q.queue))]),
    row(['---', ...report.queues.map(() => '---')]),
    ...report.scenarios.map((name) =>
      row([code(name), ...report.queues.map((q) => cellText(report.cells.find((c) => c.scenario === name && c.queue === q.queue)))]),
    ),
    '',
  ];
  const notPassed = report.cells.filter((c) => c.verdict !== 'pass');
  if (notPassed.length > 0) {
    out.push('## What did not pass', '');
    for (const cell of notPassed) {
      out.push(`- ${code(cell.queue)} × ${code(cell.scenario)}: ${MARK[cell.verdict]}${cell.matched ? '' : ' (unexpected)'}`);
      const inconclusive = cell.verdict === 'inconclusive';
      if (!inconclusive) for (const b of cell.broken) out.push(`  - ${code(b.id)}: ${mdText(b.evidence)}`);
      if ((inconclusive || cell.broken.length === 0 || cell.verdict === 'flaky') && cell.why !== null) out.push(`  - ${mdText(cell.why)}`);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
