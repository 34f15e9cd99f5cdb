import { type DrillReport, type ReportSummary, UNFINISHED } from './schema.js';

/*
 * The drill's counts as every view says them, so the console, report.md,
 * report.html and junit.xml never disagree on what a run found. The total is
 * every scenario run the drill had to do, the ones an interruption kept from
 * starting included: "3/39 passed" of a drill stopped early, not "3/5".
 */

/** How many scenario runs the drill had to do: those it ran and those it never started. */
export function plannedRuns(summary: Pick<ReportSummary, 'scenarios' | 'notStarted'>): number {
  return summary.scenarios + summary.notStarted;
}

/**
 * "3/39 passed, 0 failed, 0 vacuous, 2 inconclusive (starved), 1 not judged, 2 interrupted, 33 never started, 0 errors":
 * inconclusive, not judged, not supported, and the interruption's counts, only when there are any.
 */
export function countsLine(summary: ReportSummary): string {
  const interrupted =
    summary.interrupted > 0 || summary.notStarted > 0 ? `${summary.interrupted} interrupted, ${summary.notStarted} never started, ` : '';
  return (
    `${summary.passed}/${plannedRuns(summary)} passed, ${summary.failed} failed, ${summary.vacuous} vacuous, ` +
    `${summary.inconclusive > 0 ? `${summary.inconclusive} inconclusive (starved), ` : ''}` +
    `${summary.notJudged > 0 ? `${summary.notJudged} not judged, ` : ''}` +
    `${summary.notSupported > 0 ? `${summary.notSupported} not supported, ` : ''}${interrupted}${summary.errors} errors`
  );
}

/** "interrupted by SIGINT: 2 scenarios stopped before rest (not judged), 33 never started", or null for a drill that was not interrupted. */
export function interruptionHeadline(report: Pick<DrillReport, 'interruption' | 'summary'>): string | null {
  if (report.interruption === null) return null;
  const { interrupted, notStarted } = report.summary;
  if (report.interruption.unfinished) {
    const signal = report.interruption.by === UNFINISHED ? '' : `, interrupted by ${report.interruption.by}`;
    return (
      `unfinished${signal}: written while the drill ran (it is still running, or it ended without its final report); ` +
      `${report.summary.scenarios} scenario run${report.summary.scenarios === 1 ? '' : 's'} judged, ${notStarted} not yet`
    );
  }
  return (
    `interrupted by ${report.interruption.by}: ${interrupted} scenario run${interrupted === 1 ? '' : 's'} stopped before rest (not judged), ` +
    `${notStarted} never started`
  );
}
