import { createHash } from 'node:crypto';
import { argsDigest } from './args-digest.js';
import { CATALOGUE, type ToolName } from './catalogue.js';
import { WorldError } from './errors.js';
import type { CallMeta } from './ledger/calls-table.js';
import type { EffectRow, NewEffect } from './ledger/effects-table.js';
import type { WorldLedger } from './ledger.js';
import { publicationOf, publishArticle, recordPublication, unpublishArticle } from './systems/articles.js';
import { branchCreateOf, branchExists, createBranch, deleteBranchCreatedBy, recordBranchCreate } from './systems/branches.js';
import { fileAt, fileWriteOf, recordFileWrite, restoreFile, writeFile } from './systems/files.js';

/*
 * What each tool does to the simulated systems (a file store, a git host, a
 * payment API, a mail relay, a CMS), all inside the one transaction that also
 * writes the ledger row: the state and the evidence never disagree. Results
 * never echo the arguments (they are stored in the ledger); they carry
 * versions, counts, digests and external references instead.
 */

/** A validated call to a tool. */
export interface WorldCall {
  tool: ToolName;
  key: string;
  args: Record<string, unknown>;
  meta: CallMeta;
}

/** What a call did: the answer for the caller. externalRef is null for a pure tool (nothing applied). */
export interface Applied {
  result: unknown;
  externalRef: string | null;
  replayed: boolean;
  effectSeq: number | null;
}

type Base = Omit<NewEffect, 'result' | 'compensates'>;
type Applier = (ledger: WorldLedger, call: WorldCall, base: Base) => EffectRow;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function text(args: Record<string, unknown>, name: string): string {
  return String(args[name]);
}

/**
 * The effects under the compensated key, after checking they belong to the
 * tool this compensation undoes: restoring a file for a key that charged a
 * customer is a caller's bug, refused rather than guessed at.
 */
function originalsFor(ledger: WorldLedger, call: WorldCall): EffectRow[] {
  const of = CATALOGUE[call.tool].compensationOf;
  const originals = ledger.effectsFor(text(call.args, 'compensates'));
  if (originals.some((effect) => effect.tool !== of)) {
    throw new WorldError('WORLD_COMPENSATION_MISMATCH', `${call.tool} undoes ${of} effects, but the compensated key was used by another tool`, 409);
  }
  return originals;
}

function nothingToCompensate(ledger: WorldLedger, base: Base, compensates: string): EffectRow {
  // Recorded like any effect, so a retry of this compensation replays the same answer.
  return ledger.insertEffect({ ...base, compensates, result: () => ({ nothing_to_compensate: true }) });
}

const APPLIERS: Record<Exclude<ToolName, 'read_file'>, Applier> = {
  write_file(ledger, call, base) {
    const path = text(call.args, 'path');
    const content = text(call.args, 'content');
    const before = fileAt(ledger.db, path);
    const version = (before?.version ?? 0) + 1;
    const effect = ledger.insertEffect({
      ...base,
      compensates: null,
      result: () => ({ version, bytes: Buffer.byteLength(content, 'utf8'), contentSha256: sha256(content) }),
    });
    writeFile(ledger.db, path, content, version);
    recordFileWrite(ledger.db, effect.seq, { path, previousContent: before?.content ?? null, version });
    return effect;
  },

  restore_file_version(ledger, call, base) {
    const compensates = text(call.args, 'compensates');
    const original = originalsFor(ledger, call)[0];
    if (!original) return nothingToCompensate(ledger, base, compensates);
    const write = fileWriteOf(ledger.db, original.seq);
    // The write's file row exists: a write never removes it, a restore only empties its content.
    const current = fileAt(ledger.db, write.path) as { version: number };
    const version = current.version + 1;
    restoreFile(ledger.db, write.path, write.previousContent, version);
    return ledger.insertEffect({
      ...base,
      compensates,
      result: () => ({
        restored: original.externalRef,
        version,
        existedBefore: write.previousContent !== null,
        // Versions after the compensated write (later writes, earlier restores) are overwritten too: visible, never silent.
        laterVersionsOverwritten: current.version - write.version,
      }),
    });
  },

  create_branch(ledger, call, base) {
    const name = text(call.args, 'name');
    const existed = branchExists(ledger.db, name);
    const effect = ledger.insertEffect({ ...base, compensates: null, result: () => ({ created: !existed }) });
    if (!existed) createBranch(ledger.db, name, effect.seq);
    recordBranchCreate(ledger.db, effect.seq, { name, created: !existed });
    return effect;
  },

  delete_branch(ledger, call, base) {
    const compensates = text(call.args, 'compensates');
    const original = originalsFor(ledger, call)[0];
    if (!original) return nothingToCompensate(ledger, base, compensates);
    const create = branchCreateOf(ledger.db, original.seq);
    let result: Record<string, unknown>;
    if (!create.created) {
      // Exact rollback: that call created nothing, so deleting someone else's branch would be a new effect.
      result = { deleted: false, reason: 'the branch existed before that call' };
    } else {
      const deleted = deleteBranchCreatedBy(ledger.db, create.name, original.seq);
      result = deleted ? { deleted: true } : { deleted: false, reason: 'the branch that call created is already gone' };
    }
    return ledger.insertEffect({ ...base, compensates, result: () => ({ ...result, branch: original.externalRef }) });
  },

  charge_customer(ledger, _call, base) {
    return ledger.insertEffect({ ...base, compensates: null, result: (ref) => ({ charge: ref, status: 'succeeded' }) });
  },

  send_email(ledger, _call, base) {
    return ledger.insertEffect({ ...base, compensates: null, result: (ref) => ({ message: ref, status: 'sent' }) });
  },

  publish_article(ledger, call, base) {
    const slug = text(call.args, 'slug');
    const publications = publishArticle(ledger.db, slug);
    const effect = ledger.insertEffect({ ...base, compensates: null, result: (ref) => ({ publication: ref, publications }) });
    recordPublication(ledger.db, effect.seq, slug);
    return effect;
  },

  unpublish_article(ledger, call, base) {
    const compensates = text(call.args, 'compensates');
    // Publishing is not idempotent: one key may have published more than once; all of it is undone.
    const originals = originalsFor(ledger, call);
    if (originals.length === 0) return nothingToCompensate(ledger, base, compensates);
    let unpublished = 0;
    for (const original of originals) {
      if (unpublishArticle(ledger.db, publicationOf(ledger.db, original.seq))) unpublished += 1;
    }
    return ledger.insertEffect({
      ...base,
      compensates,
      result: () => ({ unpublished: unpublished > 0, publications: originals.map((effect) => effect.externalRef) }),
    });
  },
};

function readFile(ledger: WorldLedger, call: WorldCall): unknown {
  const row = fileAt(ledger.db, text(call.args, 'path'));
  return { exists: row?.content != null, content: row?.content ?? null, version: row?.version ?? 0 };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('SQLITE_CONSTRAINT');
}

/**
 * Carries out one call in one IMMEDIATE transaction: for an idempotent tool,
 * look up the key and replay what it stored, else apply and write the ledger
 * row. A key reused with other arguments or another tool is refused (409), as
 * payment APIs do: replaying a different request's result would hide a bug.
 */
export function applyCall(ledger: WorldLedger, call: WorldCall, at: string): Applied {
  const meta = CATALOGUE[call.tool];
  if (meta.name === 'read_file') return { result: readFile(ledger, call), externalRef: null, replayed: false, effectSeq: null };
  const digest = argsDigest(call.args);
  const attempt = (): Applied =>
    ledger.transaction(() => {
      if (call.meta.fence !== undefined && ledger.fences && !ledger.admitFence(call.key, call.meta.fence, call.meta.job)) {
        throw new WorldError(
          'WORLD_STALE_FENCE',
          `a caller under a later lease has used key ${call.key} or job ${call.meta.job}: fence ${call.meta.fence} is stale; nothing was applied`,
          409,
        );
      }
      if (meta.idempotent) {
        const stored = ledger.effectsFor(call.key).find((effect) => effect.idempotent);
        if (stored) {
          if (stored.tool !== call.tool || stored.argsDigest !== digest) {
            throw new WorldError(
              'WORLD_KEY_REUSED',
              `key already used by a ${stored.tool} call with other arguments (effect ${stored.externalRef})`,
              409,
            );
          }
          return { result: stored.result, externalRef: stored.externalRef, replayed: true, effectSeq: stored.seq };
        }
      }
      const base: Base = {
        key: call.key,
        tool: call.tool,
        idempotent: meta.idempotent,
        argsDigest: digest,
        meta: call.meta,
        at,
        refPrefix: meta.refPrefix,
      };
      const effect = APPLIERS[meta.name as Exclude<ToolName, 'read_file'>](ledger, call, base);
      return { result: effect.result, externalRef: effect.externalRef, replayed: false, effectSeq: effect.seq };
    });
  try {
    return attempt();
  } catch (error) {
    // The UNIQUE index is the last line: if another writer slipped in, the look-up now finds its row.
    if (meta.idempotent && isUniqueViolation(error)) return attempt();
    throw error;
  }
}
