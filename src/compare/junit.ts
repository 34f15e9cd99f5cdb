import { attributes, counts, renderCase, seconds, type TestCase } from '../report/junit-xml.js';
import type { Cell, CompareReport } from './schema.js';

/*
 * The comparison as JUnit XML: one testsuite per queue, one testcase per
 * cell. A cell is a failure when it is not what the command was asked to
 * expect (so a CI gate on a comparison fails exactly when `compare` exits 1),
 * except an inconclusive cell, which is an <error> (the machine starved it:
 * not the queue's failure, as in the drill's own junit.xml); skipped when it
 * was not judged, or inconclusive and expected to be; passed otherwise; its
 * verdict and its line of evidence are in the message either way.
 */

function testCase(cell: Cell): TestCase {
  const time = cell.durationMs / 1000;
  const line = `${cell.verdict}${cell.why !== null ? `: ${cell.why}` : ''}`;
  if (!cell.matched) {
    const body = [
      line,
      ...cell.broken.map((b) => `${b.id}: ${b.evidence}`),
      `expected: ${cell.expected.join(' or ')}`,
      `run: ${cell.runDir ?? '(never ran)'}`,
    ];
    const kind = cell.verdict === 'inconclusive' ? 'error' : 'failure';
    return { name: cell.scenario, seconds: time, outcome: { kind, type: cell.verdict, message: line, body: body.join('\n') } };
  }
  // Expected or not, an inconclusive cell is never a pass: what it would have shown was not judged.
  if (cell.verdict === 'not_judged' || cell.verdict === 'not_supported' || cell.verdict === 'inconclusive')
    return { name: cell.scenario, seconds: time, outcome: { kind: 'skipped', message: line } };
  return { name: cell.scenario, seconds: time, outcome: { kind: 'passed' } };
}

/** The comparison as JUnit XML (UTF-8). */
export function renderCompareJunit(report: CompareReport): string {
  const suites = report.queues.map((column) => ({ column, cases: report.cells.filter((c) => c.queue === column.queue).map(testCase) }));
  const all = suites.flatMap((s) => s.cases);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'queue-drill compare', ...counts(all), time: seconds(report.durationMs / 1000), timestamp: report.startedAt })}>`,
  ];
  for (const { column, cases } of suites) {
    out.push(`  <testsuite${attributes({ name: column.queue, ...counts(cases), time: seconds(column.durationMs / 1000) })}>`);
    for (const c of cases) out.push(...renderCase(column.queue, c));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
