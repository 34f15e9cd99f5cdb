import type { JobSnapshot } from '../../port/snapshot.js';
import type { Settings } from '../../scenarios/schema.js';

/** What the drill looks like at one tick, for the rest check. */
export interface DrillState {
  jobs: readonly JobSnapshot[];
  /** How many jobs the scenario asked for. */
  expectedJobs: number;
  /** Processes a fault holds right now (a pause). */
  held: number;
  /** A producer has not yet finished its part. */
  producing: boolean;
  /** A process waits to be started again. */
  restarting: boolean;
  /** The harness approves what waits for a person. */
  approve: boolean;
}

/**
 * At rest: nothing held or about to start, every job the scenario asked for
 * made, and each done or in review (not in review only to wait for an
 * approval the harness will give).
 */
export function atRest(state: DrillState): boolean {
  if (state.held > 0 || state.producing || state.restarting) return false;
  if (state.jobs.length < state.expectedJobs) return false;
  return state.jobs.every((job) => job.status === 'done' || (job.status === 'review' && !(state.approve && job.outcome === 'awaiting_approval')));
}

/** How long the drill must stay at rest before it ends: long enough for a worker's poll or a coordinator's tick to have seen it. */
export function quietMs(settings: Pick<Settings, 'poll_ms' | 'tick_ms'>): number {
  return Math.max(100, 3 * settings.poll_ms, 2 * settings.tick_ms);
}

/** The no-progress watchdog: the drill is stuck when what it sees has not changed for `limitMs`. */
export class Watchdog {
  private seen: string | undefined;
  private since = 0;

  constructor(private readonly limitMs: number) {}

  /** Feeds what the drill sees now (any text that changes when something happens); true when it has not changed for the limit. */
  stuck(fingerprint: string, now: number): boolean {
    if (fingerprint !== this.seen) {
      this.seen = fingerprint;
      this.since = now;
      return false;
    }
    return now - this.since >= this.limitMs;
  }

  /** Starts the no-progress window again at `now`: the time before it could not be watched. */
  restart(now: number): void {
    this.since = now;
  }
}

/** A tick this much later than the one before means the harness itself did not run (a paused machine or process). */
export const STALL_MS = 2_000;

/**
 * Notices the harness's own pauses. A virtual machine paused by its host (or a
 * harness stopped by SIGSTOP) resumes with its clock moved on and nothing
 * having run: every process was frozen alike. That time is nobody's fault in
 * the drill, so the watchdog and the deadline must not charge it to the queue
 * (a drill ended as "no progress" by a pause is a false alarm). The leases and
 * timeouts inside the drill do see it, as they would in production.
 */
export class StallWatch {
  private last: number | undefined;

  constructor(private readonly stallMs = STALL_MS) {}

  /** How long the harness was paused before this tick (0 when it was not). */
  pausedBefore(now: number): number {
    const gap = this.last === undefined ? 0 : now - this.last;
    this.last = now;
    return gap > this.stallMs ? gap : 0;
  }

  /** Starts the next gap at `now`: the time before it went to something else (a read of the queue that got no answer), not to a pause. */
  mark(now: number): void {
    this.last = now;
  }
}

/** The drill has stayed at rest for its quiet time. */
export class RestWatch {
  private since: number | null = null;

  constructor(private readonly quietMs: number) {}

  /** Feeds whether the drill is at rest now; true once it has been so for the quiet time. */
  settled(restNow: boolean, now: number): boolean {
    if (!restNow) {
      this.since = null;
      return false;
    }
    this.since ??= now;
    return now - this.since >= this.quietMs;
  }

  /** Forgets how long the drill has been at rest: what happened during a pause was not seen. */
  reset(): void {
    this.since = null;
  }
}
