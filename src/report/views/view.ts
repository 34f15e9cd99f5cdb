import type { DrillReport } from '../schema.js';

/*
 * A view of the report: one file in the run directory, made from the report
 * alone, as vitest's reporters are made from a run. writeReport writes every
 * view registered in REPORT_VIEWS (./index.ts), so a new view is one file in
 * this folder and one entry there.
 */

/** One file made from the report. */
export interface ReportFile {
  /** Its name in the run directory. */
  readonly file: string;
  /** What it is, in a few words. */
  readonly describe: string;
  /** Its whole text. The same report always gives the same text. */
  render(report: DrillReport): string;
}

/** A view: a named file made from the report, and any files that belong with it. */
export interface ReportView<Name extends string = string> extends ReportFile {
  /** How writeReport's result names its file. */
  readonly name: Name;
  /** Files written beside the view's own that belong to it (the JSON view's schema); the summary does not list them. */
  readonly companions?: readonly ReportFile[];
}
