import type Database from 'better-sqlite3';
import type { CallMeta } from './calls-table.js';
import { withLedgerFile } from './read-file.js';

/*
 * The effects table: the ground truth for "did this effect happen, and how
 * many times". A row is committed before the caller gets any answer, so a
 * response lost on the wire, a SIGKILLed world or a caller that gave up never
 * hides an effect. Arguments are never stored, only their digest.
 */

/** The effects table of a ledger file, with the indexes keyed idempotency rests on. */
export const EFFECTS_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS effects (
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
CREATE INDEX IF NOT EXISTS effects_compensates ON effects (compensates) WHERE compensates IS NOT NULL;`;

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

/** Inserts an applied effect; its seq and external reference follow the last one. Call inside a transaction. */
export function insertEffect(db: Database.Database, effect: NewEffect): EffectRow {
  const seq = (db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM effects').get() as { next: number }).next;
  const externalRef = externalRefFor(effect.refPrefix, seq);
  const result = effect.result(externalRef);
  const { job, step, attempt, worker, pid } = effect.meta;
  const epoch = effect.meta.fence ?? null;
  db.prepare(
    `INSERT INTO effects (seq, idempotency_key, tool, idempotent, args_digest, job,
         step, attempt, worker, pid, at, external_ref, result_json, compensates, epoch)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    seq,
    effect.key,
    effect.tool,
    effect.idempotent ? 1 : 0,
    effect.argsDigest,
    job,
    step,
    attempt,
    worker,
    pid,
    effect.at,
    externalRef,
    JSON.stringify(result),
    effect.compensates,
    epoch,
  );
  return {
    seq,
    key: effect.key,
    tool: effect.tool,
    idempotent: effect.idempotent,
    argsDigest: effect.argsDigest,
    job,
    step,
    attempt,
    worker,
    pid,
    at: effect.at,
    externalRef,
    result,
    compensates: effect.compensates,
    epoch,
  };
}

/** The effects applied under a key, oldest first (several for a non-idempotent tool). */
export function effectsFor(db: Database.Database, key: string): EffectRow[] {
  return (db.prepare('SELECT * FROM effects WHERE idempotency_key = ? ORDER BY seq').all(key) as RawEffect[]).map(toEffect);
}

/** Every effect an open ledger applied, in order. */
export function allEffects(db: Database.Database): EffectRow[] {
  return (db.prepare('SELECT * FROM effects ORDER BY seq').all() as RawEffect[]).map(toEffect);
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
