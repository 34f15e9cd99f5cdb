import type Database from 'better-sqlite3';

/*
 * What each holder told the world about its delivery of a job: that it began
 * (right after the queue handed it over), that it is about to make its write
 * to the queue, and whether the queue applied that write. The world orders
 * these reports and the calls in one sequence of its own, so "w1 wrote after
 * w2's delivery began" is judged in one time base, whether or not the queue
 * keeps a history: a report is sent after the claim it reports and before the
 * write it announces, so an order seen here is an order that happened. (A
 * write of the queue loop's own, `expired`, is sent as it goes out: see
 * src/judge/invariants/stale-at-world.ts.)
 */

/** The deliveries table of a ledger file. */
export const DELIVERIES_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS deliveries (
  seq           INTEGER PRIMARY KEY,
  job           TEXT    NOT NULL,
  worker        TEXT    NOT NULL,
  attempt       INTEGER NOT NULL,
  epoch         INTEGER NOT NULL,
  event         TEXT    NOT NULL CHECK (event IN ('began', 'writing', 'wrote')),
  write_kind    TEXT,
  applied       INTEGER,
  calls_before  INTEGER NOT NULL,
  at            TEXT    NOT NULL
);`;

/** The events of a delivery the world is told about. */
export const DELIVERY_EVENTS = ['began', 'writing', 'wrote'] as const;
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

/** One delivery of a job to a holder, as its holder names it. */
export interface DeliveryId {
  job: string;
  worker: string;
  attempt: number;
  epoch: number;
}

/** A holder's report: began; writing (the settlement's kind, or `expired`); wrote (that write, and whether the queue applied it). */
export interface DeliveryReport extends DeliveryId {
  event: DeliveryEvent;
  write?: string | undefined;
  applied?: boolean | undefined;
}

/** A report as recorded: its place in the world's order (after how many calls it came), and the world's time. */
export interface DeliveryRow extends DeliveryId {
  seq: number;
  event: DeliveryEvent;
  write: string | null;
  applied: boolean | null;
  callsBefore: number;
  at: string;
}

type RawDelivery = Omit<DeliveryRow, 'write' | 'applied' | 'callsBefore'> & {
  write_kind: string | null;
  applied: number | null;
  calls_before: number;
};

/** Records a report; the calls received so far place it among the calls. */
export function recordDelivery(db: Database.Database, report: DeliveryReport, at: string): number {
  const info = db
    .prepare(
      `INSERT INTO deliveries (job, worker, attempt, epoch, event, write_kind, applied, calls_before, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) FROM calls), ?)`,
    )
    .run(
      report.job,
      report.worker,
      report.attempt,
      report.epoch,
      report.event,
      report.write ?? null,
      report.applied === undefined ? null : Number(report.applied),
      at,
    );
  return Number(info.lastInsertRowid);
}

/** Every report, in the world's order. */
export function allDeliveries(db: Database.Database): DeliveryRow[] {
  return (db.prepare('SELECT * FROM deliveries ORDER BY seq').all() as RawDelivery[]).map((raw) => ({
    seq: raw.seq,
    job: raw.job,
    worker: raw.worker,
    attempt: raw.attempt,
    epoch: raw.epoch,
    event: raw.event,
    write: raw.write_kind,
    applied: raw.applied === null ? null : raw.applied === 1,
    callsBefore: raw.calls_before,
    at: raw.at,
  }));
}
