import type { ReportSummary } from '../report/schema.js';
import type { Cell, CellVerdict } from './schema.js';

/** A column's verdicts in words, the same in every comparison view: the rarer kinds only when there are any. */
export function columnCounts(s: ReportSummary): string {
  return (
    `${s.passed} pass, ${s.failed} fail, ${s.vacuous} vacuous, ${s.inconclusive > 0 ? `${s.inconclusive} inconclusive (starved), ` : ''}` +
    `${s.notJudged} not judged, ${s.notSupported > 0 ? `${s.notSupported} not supported, ` : ''}${s.errors} error` +
    `${s.interrupted + s.notStarted > 0 ? `, ${s.interrupted} interrupted, ${s.notStarted} never started` : ''}`
  );
}

// The headline's words for each kind of cell, in the order it names them; the first five always, the rest when there are any.
const HEADLINE: ReadonlyArray<[CellVerdict, string, 'always' | 'when-any']> = [
  ['pass', 'pass', 'always'],
  ['fail', 'fail', 'always'],
  ['not_judged', 'not judged', 'always'],
  ['not_supported', 'not supported', 'always'],
  ['flaky', 'flaky', 'always'],
  ['vacuous', 'vacuous', 'when-any'],
  ['inconclusive', 'inconclusive (the machine starved them)', 'when-any'],
  ['error', 'error', 'when-any'],
  ['interrupted', 'interrupted', 'when-any'],
];

/**
 * What the matrix found, counted by kind of cell, then how many cells are not
 * as expected: "30 pass, 4 fail, 2 not judged, 2 not supported, 1 flaky; 9
 * cells not as expected". Every view's headline is this line, so a comparison
 * that did not check something can never read as "all green".
 */
export function cellsHeadline(cells: readonly Cell[]): string {
  const counts = HEADLINE.flatMap(([verdict, words, when]) => {
    const n = cells.filter((c) => c.verdict === verdict).length;
    return n > 0 || when === 'always' ? [`${n} ${words}`] : [];
  });
  const unexpected = cells.filter((c) => !c.matched).length;
  return `${counts.join(', ')}; ${unexpected === 0 ? 'every cell as expected' : `${unexpected} cell${unexpected === 1 ? '' : 's'} not as expected`}`;
}
