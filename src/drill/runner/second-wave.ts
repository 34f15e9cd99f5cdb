/*
 * The producers started to enqueue every key again (`enqueue_again`) have no
 * start barrier: each goes as soon as it is up. Their start-up (from their
 * spawn to each one's first line: ~100 ms, seconds on a busy machine) is the
 * machine's time, not the queue's, as the first producers' is before their
 * release. The no-progress watchdog does not count it (DrillProcesses.starting
 * holds while any of them is silent), and neither does the deadline: it moves
 * on by that time, as the first producers' deadline counts from their release.
 * At most one timeout's worth is forgiven, so a second wave that never starts
 * still ends the drill.
 */

/** The second wave's start-up, tick by tick: how much later the drill's deadline falls for it. */
export class SecondWave {
  /** The last tick at which some producer of the wave was still starting, or null (not started yet, or all up). */
  private last: number | null = null;
  private forgiven = 0;

  private readonly names: readonly string[];

  constructor(
    /** The producers `enqueue_again` starts. */
    wave: readonly { name: string }[],
    /** The most the deadline may move on by, in all: the scenario's timeout_ms. */
    private readonly limitMs: number,
  ) {
    this.names = wave.map((spec) => spec.name);
  }

  /** The wave was started at `now`. */
  started(now: number): void {
    this.last = now;
  }

  /**
   * How much later the deadline falls for the time since the last tick, spent waiting for the wave to start
   * (less `paused`, what the harness's own pause already forgave of it); 0 once each of them is up or gone.
   */
  moveBy(now: number, paused: number, starting: (name: string) => boolean): number {
    if (this.last === null) return 0;
    const waited = Math.max(0, Math.min(now - this.last - paused, this.limitMs - this.forgiven));
    this.forgiven += waited;
    this.last = this.names.some(starting) ? now : null;
    return waited;
  }
}
