import type { ReportSummary } from '../report/schema.js';
import type { Cell } from './schema.js';

/** A column's verdicts in words, the same in every comparison view: inconclusive and the interruption's counts only when there are any. */
export function columnCounts(s: ReportSummary): string {
  return (
    `${s.passed} pass, ${s.failed} fail, ${s.vacuous} vacuous, ${s.inconclusive > 0 ? `${s.inconclusive} inconclusive (starved), ` : ''}` +
    `${s.notJudged} not judged, ${s.errors} error` +
    `${s.interrupted + s.notStarted > 0 ? `, ${s.interrupted} interrupted, ${s.notStarted} never started` : ''}`
  );
}

/**
 * "every cell as expected", "2 cells not as expected", and how many cells the
 * machine starved past judging: a comparison on a loaded machine must say so
 * in its headline, whether or not its --expect allowed it.
 */
export function cellsHeadline(cells: readonly Cell[]): string {
  const unexpected = cells.filter((c) => !c.matched).length;
  const starved = cells.filter((c) => c.verdict === 'inconclusive').length;
  return (
    `${unexpected === 0 ? 'every cell as expected' : `${unexpected} cell${unexpected === 1 ? '' : 's'} not as expected`}` +
    `${starved > 0 ? `, ${starved} inconclusive (the machine starved ${starved === 1 ? 'it' : 'them'})` : ''}`
  );
}
