import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { canonicalJsonUtf8 } from '../kernel/canonical-json.js';
import { fromJsValue } from '../kernel/python-json.js';
import { WorldError } from './errors.js';

/*
 * The world's ledger: its own SQLite file, the ground truth for "did this
 * effect happen, and how many times". An effect row is committed before the
 * caller gets any answer, so a response lost on the wire, a SIGKILLed world or
 * a caller that gave up never hides an effect. Arguments are never stored,
 * only their digest: they may carry secrets.
 *
 * The same file holds the calls received (for debugging a drill), the armed
 * faults (so a restarted world keeps them, and their fired counts survive),
 * and the state of the simulated systems (files, branches, articles), which
 * compensation needs: restoring a file needs the content it had.
 */

/** The tables of a ledger file; created if missing, so any process may open it first. */
export const LEDGER_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS effects (
  seq             INTEGER PRIMARY KEY,
  idempotency_key TEXT    NOT NULL,
  tool            TEXT    NOT NULL,
  idempotent      INTEGER NOT NULL CHECK (idempotent IN (0, 1)),
  args_digest     TEXT    NOT NULL,
  job             TEXT    NOT NULL,
  step            TEXT    NOT NULL,
  attempt         INTEGER NOT NULL,
  worker          TEXT    NOT NULL,
  pid             INTEGER NOT NULL,
  at              TEXT    NOT NULL,
  external_ref    TEXT    NOT NULL UNIQUE,
  result_json     TEXT    NOT NULL,
  compensates     TEXT,
  -- The epoch (lease fence) the caller showed: an effect applied under an epoch older than one already seen for its job is a stale holder's.
  epoch           INTEGER
);
-- Keyed idempotency rests on this, not only on the look-before-insert: two
-- world processes racing on one key cannot both insert.
CREATE UNIQUE INDEX IF NOT EXISTS effects_idempotent_key ON effects (idempotency_key) WHERE idempotent = 1;
CREATE INDEX IF NOT EXISTS effects_key ON effects (idempotency_key, tool);
CREATE INDEX IF NOT EXISTS effects_compensates ON effects (compensates) WHERE compensates IS NOT NULL;

CREATE TABLE IF NOT EXISTS calls (
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
  at              TEXT NOT NULL
);

-- Resource-side fencing: per key, and per job, the highest lease fence (epoch)
-- a caller has shown. A call under a lower one comes from a holder whose lease
-- has moved on, and is refused before anything is applied: on its own key, and
-- on any other step of its job. A reconciliation raises the floors, so "not
-- executed" stays true for every older holder.
CREATE TABLE IF NOT EXISTS world_fences (
  idempotency_key TEXT PRIMARY KEY,
  fence           INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_job_fences (
  job    TEXT PRIMARY KEY,
  fence  INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS faults (
  id          INTEGER PRIMARY KEY,
  spec_json   TEXT    NOT NULL,
  times       INTEGER NOT NULL,
  fired       INTEGER NOT NULL DEFAULT 0,
  armed_at    TEXT    NOT NULL,
  cleared_at  TEXT
);

CREATE TABLE IF NOT EXISTS world_files (
  path     TEXT PRIMARY KEY,
  content  TEXT,
  version  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_file_writes (
  effect_seq        INTEGER PRIMARY KEY,
  path              TEXT    NOT NULL,
  previous_content  TEXT,
  version           INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_branches (
  name        TEXT PRIMARY KEY,
  created_by  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_branch_creates (
  effect_seq  INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL,
  created     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_articles (
  slug          TEXT PRIMARY KEY,
  published     INTEGER NOT NULL,
  publications  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_publications (
  effect_seq  INTEGER PRIMARY KEY,
  slug        TEXT    NOT NULL
);
`;

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

/** One applied effect, as the harness reads it. */
export interface EffectRow {
  seq: number;
  key: string;
  tool: string;
  idempotent: boolean;
  argsDigest: string;
  job: string;
  step: string;
  attempt: number;
  worker: string;
  pid: number;
  at: string;
  externalRef: string;
  result: unknown;
  /** For a compensation: the key of the effect it undoes. */
  compensates: string | null;
  /** The epoch (lease fence) its caller showed; null when it showed none. */
  epoch: number | null;
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
  at: string;
}

/** A new effect, before the ledger gives it a seq and an external reference. */
export interface NewEffect {
  key: string;
  tool: string;
  idempotent: boolean;
  argsDigest: string;
  meta: CallMeta;
  at: string;
  refPrefix: string;
  /** Builds the result once the external reference is known (a charge id is part of the result). */
  result: (externalRef: string) => unknown;
  compensates: string | null;
}

/**
 * SHA-256 hex of the canonical JSON of a call's arguments, equal to Python's
 * sha256(json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).
 * Throws (CanonicalJsonError, PythonJsonError) where Python would: a lone surrogate, too deep a tree.
 */
export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJsonUtf8(fromJsValue(args))).digest('hex');
}

/** The external reference of effect `seq`: deterministic, so two runs of one drill agree ("ch_000017"). */
export function externalRefFor(prefix: string, seq: number): string {
  return `${prefix}${String(seq).padStart(6, '0')}`;
}

type RawEffect = {
  seq: number;
  idempotency_key: string;
  tool: string;
  idempotent: number;
  args_digest: string;
  job: string;
  step: string;
  attempt: number;
  worker: string;
  pid: number;
  at: string;
  external_ref: string;
  result_json: string;
  compensates: string | null;
  epoch: number | null;
};

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
  at: string;
};

function toEffect(raw: RawEffect): EffectRow {
  return {
    seq: raw.seq,
    key: raw.idempotency_key,
    tool: raw.tool,
    idempotent: raw.idempotent === 1,
    argsDigest: raw.args_digest,
    job: raw.job,
    step: raw.step,
    attempt: raw.attempt,
    worker: raw.worker,
    pid: raw.pid,
    at: raw.at,
    externalRef: raw.external_ref,
    result: JSON.parse(raw.result_json) as unknown,
    compensates: raw.compensates,
    epoch: raw.epoch,
  };
}

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
    at: raw.at,
  };
}

/**
 * One connection to a ledger file. WAL so the harness can read while the world
 * writes; synchronous=FULL because the ledger is the evidence: an effect
 * answered must survive even a power cut of the test machine, not just a
 * SIGKILL; busy_timeout so several world processes on one file queue up.
 */
export class WorldLedger {
  private constructor(readonly db: Database.Database) {}

  /** Opens (creating if needed) a ledger file. */
  static open(file: string, options: { busyTimeoutMs?: number } = {}): WorldLedger {
    const db = new Database(file);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(LEDGER_SCHEMA_SQL);
    return new WorldLedger(db);
  }

  /** Runs fn in one IMMEDIATE transaction (the write lock first, so check-then-insert cannot interleave); nested calls become savepoints. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Records a call as received and returns its seq (the "Nth call overall" of a fault). */
  receiveCall(call: { key: string | null; tool: string | null; meta: CallMeta | null; at: string }): number {
    const info = this.db
      .prepare(
        `INSERT INTO calls (seq, idempotency_key, tool, job, step, attempt, worker, pid, at)
         VALUES ((SELECT COALESCE(MAX(seq), 0) + 1 FROM calls), ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(call.key, call.tool, call.meta?.job ?? null, call.meta?.step ?? null, call.meta?.attempt ?? null, call.meta?.worker ?? null, call.meta?.pid ?? null, call.at);
    return Number(info.lastInsertRowid);
  }

  /** Records how a call ended. */
  finishCall(seq: number, end: { outcome: CallOutcome; status: number | null; faultId: number | null; effectSeq: number | null }): void {
    this.db
      .prepare('UPDATE calls SET outcome = ?, status = ?, fault_id = ?, effect_seq = ? WHERE seq = ?')
      .run(end.outcome, end.status, end.faultId, end.effectSeq, seq);
  }

  /** Inserts an applied effect; its seq and external reference follow the last one. Call inside transaction(). */
  insertEffect(effect: NewEffect): EffectRow {
    const seq = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM effects').get() as { next: number }).next;
    const externalRef = externalRefFor(effect.refPrefix, seq);
    const result = effect.result(externalRef);
    const { job, step, attempt, worker, pid } = effect.meta;
    const epoch = effect.meta.fence ?? null;
    this.db
      .prepare(
        `INSERT INTO effects (seq, idempotency_key, tool, idempotent, args_digest, job, step, attempt, worker, pid, at, external_ref, result_json, compensates, epoch)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(seq, effect.key, effect.tool, effect.idempotent ? 1 : 0, effect.argsDigest, job, step, attempt, worker, pid, effect.at, externalRef, JSON.stringify(result), effect.compensates, epoch);
    return { seq, key: effect.key, tool: effect.tool, idempotent: effect.idempotent, argsDigest: effect.argsDigest, job, step, attempt, worker, pid, at: effect.at, externalRef, result, compensates: effect.compensates, epoch };
  }

  /**
   * Shows a fence (epoch) for a key and, when given, for its job: false when a
   * higher one was already shown for either (the caller's lease has moved on),
   * else records it as their floor. Call inside transaction().
   */
  admitFence(key: string, fence: number, job?: string | null): boolean {
    const keyFloor = this.db.prepare('SELECT fence FROM world_fences WHERE idempotency_key = ?').get(key) as { fence: number } | undefined;
    const jobFloor = job ? (this.db.prepare('SELECT fence FROM world_job_fences WHERE job = ?').get(job) as { fence: number } | undefined) : undefined;
    if ((keyFloor && keyFloor.fence > fence) || (jobFloor && jobFloor.fence > fence)) return false;
    this.db.prepare('INSERT INTO world_fences (idempotency_key, fence) VALUES (?, ?) ON CONFLICT (idempotency_key) DO UPDATE SET fence = MAX(fence, excluded.fence)').run(key, fence);
    if (job) this.db.prepare('INSERT INTO world_job_fences (job, fence) VALUES (?, ?) ON CONFLICT (job) DO UPDATE SET fence = MAX(fence, excluded.fence)').run(job, fence);
    return true;
  }

  /** The effects applied under a key, oldest first (several for a non-idempotent tool). */
  effectsFor(key: string): EffectRow[] {
    return (this.db.prepare('SELECT * FROM effects WHERE idempotency_key = ? ORDER BY seq').all(key) as RawEffect[]).map(toEffect);
  }

  /** Every applied effect, in order. */
  effects(): EffectRow[] {
    return allEffects(this.db);
  }

  /** Every call received, in order. */
  calls(): CallRow[] {
    return allCalls(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function allEffects(db: Database.Database): EffectRow[] {
  return (db.prepare('SELECT * FROM effects ORDER BY seq').all() as RawEffect[]).map(toEffect);
}

function allCalls(db: Database.Database): CallRow[] {
  return (db.prepare('SELECT * FROM calls ORDER BY seq').all() as RawCall[]).map(toCall);
}

/**
 * Opens an existing ledger file for reading, for as long as fn runs. A missing
 * file is an error, not an empty ledger: a harness pointed at the wrong path
 * would otherwise "prove" that no effect was ever duplicated.
 */
export function withLedgerFile<T>(file: string, fn: (db: Database.Database) => T): T {
  if (!existsSync(file)) throw new WorldError('WORLD_LEDGER_MISSING', `no ledger file at ${file}`);
  // Read-write but never written: a read-only WAL connection fails when the -shm file is missing.
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return fn(db);
  } finally {
    db.close();
  }
}

/** Every applied effect in a ledger file, in the order applied. */
export function readLedger(file: string): EffectRow[] {
  return withLedgerFile(file, allEffects);
}

/** The applied effects of a ledger file grouped by idempotency key: more than one under a key is a duplicate. */
export function effectsByKey(file: string): Map<string, EffectRow[]> {
  const byKey = new Map<string, EffectRow[]>();
  for (const effect of readLedger(file)) {
    const list = byKey.get(effect.key);
    if (list) list.push(effect);
    else byKey.set(effect.key, [effect]);
  }
  return byKey;
}

/** Every call a ledger file recorded, in the order received. */
export function readCalls(file: string): CallRow[] {
  return withLedgerFile(file, allCalls);
}
