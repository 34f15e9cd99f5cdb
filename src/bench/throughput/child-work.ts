/** A child's side of one target, connected and ready: `run` works from the release on, `close` lets go of the connection. */
export interface ChildWork {
  /**
   * Works until there is nothing left, or until `stop` (the cell's time is up:
   * it ends after the unit in hand); how many units it did, and when the last
   * one ended (null: none).
   */
  run(stop: AbortSignal): Promise<{ units: number; lastAt: number | null }>;
  close(): Promise<void>;
}
