/**
 * What lets an idle process (a worker with nothing to claim, the coordinator
 * between sweeps) sleep until there may be work, instead of asking the queue
 * on every poll (src/port/wait-for-work.ts). Optional: a queue without them is polled.
 */
export interface WakeSignals {
  /** Cheap to read (no table read, no lock); moves whenever another process commits to the queue. */
  changeCount(): number;
  /** How long until a job falls due by time alone (a retry's delay, a lease's end plus the skew margin); 0 if one is due; null if none will. */
  msUntilDue(): Promise<number | null>;
}
