import type Database from 'better-sqlite3';
import { withLedgerFile } from './read-file.js';

/*
 * The calls a world received, whatever became of them: for debugging a
 * drill, and for the faults, whose "Nth call" is a row's seq here. A row is
 * written as the call arrives and completed when it ends, so a row whose
 * outcome is still null is a call the world died deciding.
 */

/** The calls table of a ledger file. */
export const CALLS_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS calls (
  seq             INTEGER PRIMARY KEY,
  idempotency_key TEXT,
  tool            TEXT,
  outcome         TEXT CHECK (outcome IS NULL OR outcome IN ('applied', 'replayed', 'failed', 'dropped')),
  status          INTEGER,
  fault_id        INTEGER,
  effect_seq      INTEGER,
  job             TEXT,
  step            TEXT,
  attempt         INTEGER,
  worker          TEXT,
  pid             INTEGER,
  fence           INTEGER,
  at              TEXT NOT NULL
);`;

/** Who made a call: attributes every effect to a job step, an attempt and a process. */
export interface CallMeta {
  job: string;
  step: string;
  attempt: number;
  worker: string;
  pid: number;
  /** The caller's lease fence, when it holds one: older fences than the key has seen are refused. */
  fence?: number | undefined;
}

/** Every way a call can end. */
export const CALL_OUTCOMES = ['applied', 'replayed', 'failed', 'dropped'] as const;
/** How a call ended: applied (or, for a pure tool, carried out), replayed by key, failed before applying, or applied and then its response dropped. */
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** One call received; outcome null means the world died before deciding it. */
export interface CallRow {
  seq: number;
  key: string | null;
  tool: string | null;
  outcome: CallOutcome | null;
  status: number | null;
  faultId: number | null;
  effectSeq: number | null;
  job: string | null;
  step: string | null;
  attempt: number | null;
  worker: string | null;
  pid: number | null;
  /** The epoch its caller showed (its delivery), fenced or not. */
  fence: number | null;
  at: string;
}

/** A call as it arrives: what could be read of it (nothing, for a body that is not JSON). */
export interface ReceivedCallRow {
  key: string | null;
  tool: string | null;
  meta: CallMeta | null;
  at: string;
}

/** How a call ended, as its row records it. */
export interface CallEnd {
  outcome: CallOutcome;
  status: number | null;
  faultId: number | null;
  effectSeq: number | null;
}

type RawCall = {
  seq: number;
  idempotency_key: string | null;
  tool: string | null;
  outcome: CallOutcome | null;
  status: number | null;
  fault_id: number | null;
  effect_seq: number | null;
  job: string | null;
  step: string | null;
  attempt: number | null;
  worker: string | null;
  pid: number | null;
  fence: number | null;
  at: string;
};

function toCall(raw: RawCall): CallRow {
  return {
    seq: raw.seq,
    key: raw.idempotency_key,
    tool: raw.tool,
    outcome: raw.outcome,
    status: raw.status,
    faultId: raw.fault_id,
    effectSeq: raw.effect_seq,
    job: raw.job,
    step: raw.step,
    attempt: raw.attempt,
    worker: raw.worker,
    pid: raw.pid,
    fence: raw.fence,
    at: raw.at,
  };
}

/** Records a call as received and returns its seq (the "Nth call overall" of a fault). */
export function receiveCall(db: Database.Database, call: ReceivedCallRow): number {
  const info = db
    .prepare(
      `INSERT INTO calls (seq, idempotency_key, tool, job, step, attempt, worker, pid, fence, at)
         VALUES ((SELECT COALESCE(MAX(seq), 0) + 1 FROM calls), ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      call.key,
      call.tool,
      call.meta?.job ?? null,
      call.meta?.step ?? null,
      call.meta?.attempt ?? null,
      call.meta?.worker ?? null,
      call.meta?.pid ?? null,
      call.meta?.fence ?? null,
      call.at,
    );
  return Number(info.lastInsertRowid);
}

/** Records how a call ended. */
export function finishCall(db: Database.Database, seq: number, end: CallEnd): void {
  db.prepare('UPDATE calls SET outcome = ?, status = ?, fault_id = ?, effect_seq = ? WHERE seq = ?').run(
    end.outcome,
    end.status,
    end.faultId,
    end.effectSeq,
    seq,
  );
}

/** Every call an open ledger received, in order. */
export function allCalls(db: Database.Database): CallRow[] {
  return (db.prepare('SELECT * FROM calls ORDER BY seq').all() as RawCall[]).map(toCall);
}

/** Every call a ledger file recorded, in the order received. */
export function readCalls(file: string): CallRow[] {
  return withLedgerFile(file, allCalls);
}
