import type { DrillReport } from './schema.js';
import { writeReport } from './write-report.js';

/*
 * The report of a drill still running, on disk: written at its start (so
 * `latest` points at the newest run from its first moment), after each
 * verdict, and at a signal, marked unfinished; the drill's final report
 * replaces it. So however a drill ends (an error, a second signal, SIGKILL,
 * the machine stopped), every verdict it reached is in its run directory, in
 * every view. A write that fails (a full disk) does not stop the drill: the
 * last good one stays, and the final write says what failed.
 */

/** Writes the report as it stands now; never throws. */
export function writeProgressReport(runDir: string, soFar: DrillReport): void {
  try {
    writeReport(runDir, soFar);
  } catch {
    // Kept quiet here: the drill goes on, and its final write reports the same failure.
  }
}
