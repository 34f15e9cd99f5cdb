import type { ClockOffset } from '../kernel/time-base.js';
import type { ControlledChild } from './control-channel.js';
import type { LeaseGranted } from './points.js';

/*
 * The harness's record of the drill's clocks and leases, kept as the control
 * channels speak (src/faults/controller.ts): each process's offset bound
 * (src/kernel/time-base.ts says how a line bounds it), and each lease a
 * worker's queue granted, stamped by the harness as it arrived. Every
 * controller of a drill writes into one book.
 */

/** A lease a worker's queue granted, as the harness received the worker's report of it. */
export interface LeaseReport extends LeaseGranted {
  /** The process that reported it (its channel's name, as the timeline names processes without the incarnation). */
  process: string;
  /** When the report reached the harness, by the harness's clock: the grant happened before. */
  at: string;
}

interface Bound {
  process: string;
  low: number;
  high: number | null;
  samples: number;
}

/** Every process's clock offset and every lease granted, in one drill. */
export class ClockBook {
  private readonly bounds = new Map<string, Bound>();
  readonly leases: LeaseReport[] = [];

  /** One incarnation's line: its clock minus the harness's is at least `low`; and, once a round trip closed, at most `high`. */
  bound(child: Pick<ControlledChild, 'name' | 'incarnation'>, low: number, high: number | null): void {
    const key = `${child.name}#${child.incarnation}`;
    const bound = this.bounds.get(key) ?? { process: child.name, low: Number.NEGATIVE_INFINITY, high: null, samples: 0 };
    bound.low = Math.max(bound.low, low);
    if (high !== null) bound.high = bound.high === null ? high : Math.min(bound.high, high);
    bound.samples++;
    this.bounds.set(key, bound);
  }

  /**
   * Each process's offset. Its incarnations (restarts) run the same command
   * line, but a stamp does not say which one wrote it, so the bound given is
   * the one that holds for every incarnation: the widest.
   */
  offsets(): ClockOffset[] {
    const byProcess = new Map<string, ClockOffset>();
    for (const bound of this.bounds.values()) {
      const seen = byProcess.get(bound.process);
      if (!seen) {
        byProcess.set(bound.process, { process: bound.process, lowMs: bound.low, highMs: bound.high, samples: bound.samples });
        continue;
      }
      seen.lowMs = Math.min(seen.lowMs, bound.low);
      seen.highMs = seen.highMs === null || bound.high === null ? null : Math.max(seen.highMs, bound.high);
      seen.samples += bound.samples;
    }
    return [...byProcess.values()].sort((a, b) => a.process.localeCompare(b.process));
  }
}
