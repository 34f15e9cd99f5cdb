import type { DrillReport } from './schema.js';
import { writeReport } from './write-report.js';

/*
 * The report of a drill still running, on disk: written at its start (so
 * `latest` points at the newest run from its first moment), after each
 * verdict, and at a signal, marked unfinished; the drill's final report
 * replaces it. So however a drill ends (an error, a second signal, SIGKILL,
 * the machine stopped), every verdict it reached is in its run directory, in
 * every view. A write that fails (a full disk) does not stop the drill: the
 * final write says so, or the last good one stays.
 */

export class ProgressReport {
  private lastFailure: string | null = null;

  constructor(
    private readonly runDir: string,
    private readonly soFar: () => DrillReport,
  ) {}

  /** Writes the report as it stands; never throws. */
  write(): void {
    try {
      writeReport(this.runDir, this.soFar());
      this.lastFailure = null;
    } catch (error) {
      this.lastFailure = error instanceof Error ? error.message : String(error);
    }
  }

  /** Why the last write failed, or null when it did not. */
  get failure(): string | null {
    return this.lastFailure;
  }
}
