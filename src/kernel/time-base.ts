/*
 * One time base for the judge: the harness's clock. Each drill process's own
 * clock (skewed on purpose, for a skew fault) is measured against it over the
 * control channel (src/faults/clock-book.ts): every line a child sends carries
 * its clock's reading as it is sent, and says when, by that clock, the answer
 * to its line before arrived; the harness notes its own time as it receives
 * each line and as it answers. A line cannot arrive before it was sent, nor an
 * answer before it was written, so the process's offset (its clock minus the
 * harness's) lies between the largest (reading − receipt) and the smallest
 * (arrival − answer): a bound measured, never assumed, as tight as the
 * quickest round trip. A stamp a process wrote by its clock is placed in the
 * harness's time by taking that offset off: no earlier than stamp − high, no
 * later than stamp − low.
 */

/** How far a process's clock is from the harness's: its reading minus the harness's lies in [lowMs, highMs] (highMs null: no upper bound). */
export interface ClockOffset {
  /** As the harness names the process (w1, coordinator, p1): every incarnation's readings together. */
  process: string;
  lowMs: number;
  highMs: number | null;
  /** How many readings bound it. */
  samples: number;
}

/** When something happened in the harness's time: no earlier than `earliest`, no later than `latest` (ms since the epoch). */
export interface Placed {
  earliest: number;
  latest: number;
}

/** The harness itself as a writer (its own connection: a person's approval): its clock is the time base. */
export const HARNESS_CLOCK = 'harness';

/** Whose clock wrote a history row: the harness's for a person's action (its own connection), else the process the row names. */
export function writerOf(event: { actor: string; worker: string | null }): string | null {
  return event.actor === 'human' ? HARNESS_CLOCK : event.worker;
}

/** Whose clock stamped a queue's records: each writing process's, or the queue's server's (capabilities.clock). */
export type QueueClock = 'caller' | 'server';

/** Places stamps written by the drill's processes in the harness's time. */
export interface TimeBase {
  /**
   * A stamp the queue wrote for `writer` (a history row, a checkpoint), placed:
   * on the caller's clock, by the writer's measured offset; on the server's,
   * as it is (one clock for every row, so stamps compare among themselves).
   * Undefined when it is no time, or the writer's clock was never measured.
   */
  queue(at: string, writer: string | null): Placed | undefined;
  /** A value of `process`'s own clock (a lease's end it was granted, on the caller's clock), placed. */
  own(ms: number, process: string): Placed | undefined;
  /**
   * "w1's clock +40 ms": how far `writer`'s queue stamps are moved to show them
   * at the harness's time, or null when they are shown as written (a server's
   * clock, a clock never measured, or one whose bound holds no skew: 0 within it).
   */
  correction(writer: string | null): string | null;
}

/** The measured offsets by process, the harness's own (exactly 0) among them. */
function offsetsByProcess(offsets: readonly ClockOffset[]): Map<string, ClockOffset> {
  const map = new Map(offsets.map((offset) => [offset.process, offset]));
  map.set(HARNESS_CLOCK, { process: HARNESS_CLOCK, lowMs: 0, highMs: 0, samples: 0 });
  return map;
}

/** A clock's offset as one number: the middle of its bound. */
export function offsetEstimate(offset: ClockOffset): number | null {
  return offset.highMs === null ? null : (offset.lowMs + offset.highMs) / 2;
}

/** "w1 −90 ms (±1)": a clock measured off the harness's (its whole bound on one side of 0), or null when its bound holds 0 (or is open). */
export function skewShown(offset: ClockOffset): string | null {
  const estimate = offsetEstimate(offset);
  if (estimate === null || (offset.lowMs <= 0 && offset.highMs! >= 0)) return null;
  const within = Math.ceil((offset.highMs! - offset.lowMs) / 2);
  return `${offset.process} ${estimate > 0 ? '+' : '−'}${Math.round(Math.abs(estimate))} ms (±${within})`;
}

/** The time base of one drill: its queue's clock and every process's measured offset. */
export function timeBase(queueClock: QueueClock, offsets: readonly ClockOffset[]): TimeBase {
  const byProcess = offsetsByProcess(offsets);
  const own = (ms: number, process: string): Placed | undefined => {
    const offset = byProcess.get(process);
    if (!offset || offset.highMs === null || !Number.isFinite(ms)) return undefined;
    return { earliest: ms - offset.highMs, latest: ms - offset.lowMs };
  };
  return {
    queue(at, writer) {
      const ms = Date.parse(at);
      if (!Number.isFinite(ms)) return undefined;
      if (queueClock === 'server') return { earliest: ms, latest: ms };
      return writer === null ? undefined : own(ms, writer);
    },
    own,
    correction(writer) {
      if (queueClock === 'server' || writer === null) return null;
      const offset = byProcess.get(writer);
      const estimate = offset ? offsetEstimate(offset) : null;
      if (!offset || estimate === null || skewShown(offset) === null) return null;
      return `${writer}'s clock ${estimate > 0 ? '+' : '−'}${Math.round(Math.abs(estimate))} ms`;
    },
  };
}

/** The time base where nothing was measured: every stamp taken as written (a store read after the drill, by hand). */
export const STAMPS_AS_WRITTEN: TimeBase = {
  queue(at) {
    const ms = Date.parse(at);
    return Number.isFinite(ms) ? { earliest: ms, latest: ms } : undefined;
  },
  own: (ms) => (Number.isFinite(ms) ? { earliest: ms, latest: ms } : undefined),
  correction: () => null,
};

/** One row of a job's life from one source, with its stamp, whose clock wrote it (undefined: not the queue's, taken as written), and its rank at a tie. */
export interface Stamped<T> {
  item: T;
  at: string;
  writer?: string | null;
  tie: number;
}

/**
 * Rows of several sources merged in one time base. Each source comes in its
 * own order, which is kept (the queue's history in the order it committed,
 * whatever its writers' clocks said): a row is placed no earlier than the
 * one before it in its source. Ties go by `tie`, then by the order given.
 */
export function inOneTimeBase<T>(
  sources: ReadonlyArray<ReadonlyArray<Stamped<T>>>,
  base: TimeBase = STAMPS_AS_WRITTEN,
): Array<{ item: T; at: string; stamp: string; correction: string | null }> {
  const placed: Array<{ item: T; ms: number; at: string; stamp: string; correction: string | null; tie: number; index: number }> = [];
  for (const source of sources) {
    let floor = Number.NEGATIVE_INFINITY;
    for (const row of source) {
      // Moved to the harness's time where its writer's clock was measured off it; else as written.
      const correction = row.writer === undefined ? null : base.correction(row.writer);
      const where = correction === null ? STAMPS_AS_WRITTEN.queue(row.at, null) : base.queue(row.at, row.writer ?? null);
      const mid = where ? Math.round((where.earliest + where.latest) / 2) : undefined;
      const ms = Math.max(floor, mid ?? floor);
      floor = ms;
      const at = correction !== null && mid !== undefined ? new Date(mid).toISOString() : row.at;
      placed.push({ item: row.item, ms, at, stamp: row.at, correction, tie: row.tie, index: placed.length });
    }
  }
  placed.sort((a, b) => a.ms - b.ms || a.tie - b.tie || a.index - b.index);
  return placed.map(({ item, at, stamp, correction }) => ({ item, at, stamp, correction }));
}
