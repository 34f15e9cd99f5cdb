import type { DrillReport } from './schema.js';

/** What the run says of its baseline, a line each, for every view: the regressions first, then what improved, appeared or went. */
export function baselineLines(baseline: NonNullable<DrillReport['baseline']>): { head: string; regressions: string[]; others: string[] } {
  const n = baseline.regressions.length;
  const head =
    n === 0
      ? `no regression against the baseline ${baseline.baseline}`
      : `${n} regression${n === 1 ? '' : 's'} against the baseline ${baseline.baseline}`;
  return {
    head,
    regressions: baseline.regressions.map((r) => `${r.scenario}: ${r.detail}`),
    others: [
      ...baseline.improvements.map((line) => `improved: ${line}`),
      ...baseline.added.map((name) => `new: ${name} (not in the baseline)`),
      ...baseline.missing.map((name) => `gone: ${name} (in the baseline, not run now)`),
      ...(baseline.notRun
        ? [`not compared: ${baseline.notRun} of the baseline's scenario run${baseline.notRun === 1 ? '' : 's'}, left out by --only`]
        : []),
    ],
  };
}
