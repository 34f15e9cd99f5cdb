/*
 * When the scenario's own fault restarts the queue's server: an outage the
 * harness sees then, or while the server comes back, is the scenario's doing
 * and is waited out. Any other outage is the harness's world failing under
 * the drill (a server stopped, killed or frozen by someone else), which ends
 * the scenario as an error rather than be judged as the queue's.
 */
export class RestartWindow {
  private running = 0;
  private endedAt: number | null = null;

  /** Runs the restart, marking the window open while it runs. */
  async around<T>(restart: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await restart();
    } finally {
      this.running--;
      this.endedAt = Date.now();
    }
  }

  /** Whether an outage seen at `now` may be the restart's: during one, or within `afterMs` of the last one's end. */
  covers(now: number, afterMs: number): boolean {
    return this.running > 0 || (this.endedAt !== null && now - this.endedAt <= afterMs);
  }
}
