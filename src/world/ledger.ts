import type Database from 'better-sqlite3';
import { openSqliteFile } from '../kernel/sqlite-file.js';
import { allCalls, type CallEnd, type CallRow, finishCall, type ReceivedCallRow, receiveCall } from './ledger/calls-table.js';
import { allDeliveries, type DeliveryReport, type DeliveryRow, recordDelivery } from './ledger/deliveries-table.js';
import { allEffects, type EffectRow, effectsFor, insertEffect, type NewEffect } from './ledger/effects-table.js';
import { admitFence, raiseJobFence } from './ledger/fences-table.js';
import { LEDGER_SCHEMA_SQL } from './ledger/schema.js';
import { fencesOn } from './ledger/settings-table.js';

/*
 * The world's ledger: its own SQLite file, the ground truth for "did this
 * effect happen, and how many times". This module is the connection a world
 * holds; each table's rows and SQL live beside it (ledger/*-table.ts), the
 * simulated systems' state in systems/, so a reader of the evidence does not
 * wade through how a branch is deleted.
 */

// Kept for the code outside src/world that imports them from here.
export type { CallRow } from './ledger/calls-table.js';
export { readCalls } from './ledger/calls-table.js';
export type { DeliveryRow } from './ledger/deliveries-table.js';
export type { EffectRow } from './ledger/effects-table.js';
export { readLedger } from './ledger/effects-table.js';
// faults.ts (not ours to edit) reads its table through this.
export { withLedgerFile } from './ledger/read-file.js';

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
    return new WorldLedger(openSqliteFile(file, { schemaSql: LEDGER_SCHEMA_SQL, synchronous: 'FULL', busyTimeoutMs: options.busyTimeoutMs }));
  }

  /** Runs fn in one IMMEDIATE transaction (the write lock first, so check-then-insert cannot interleave); nested calls become savepoints. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Records a call as received and returns its seq (the "Nth call overall" of a fault). */
  receiveCall(call: ReceivedCallRow): number {
    return receiveCall(this.db, call);
  }

  /** Records how a call ended. */
  finishCall(seq: number, end: CallEnd): void {
    finishCall(this.db, seq, end);
  }

  /** Inserts an applied effect; its seq and external reference follow the last one. Call inside transaction(). */
  insertEffect(effect: NewEffect): EffectRow {
    return insertEffect(this.db, effect);
  }

  /** Whether this world refuses stale fences (a plain world applies what it is sent): the file's setting, read on each call. */
  get fences(): boolean {
    return fencesOn(this.db);
  }

  /**
   * Records a holder's report on its delivery of a job. In a fenced world a
   * delivery's start also raises its job's floor to the delivery's epoch: the
   * new lease is known to the world from its grant, not from its first call.
   */
  recordDelivery(report: DeliveryReport, at: string): number {
    return this.transaction(() => {
      if (report.event === 'began' && this.fences) raiseJobFence(this.db, report.job, report.epoch);
      return recordDelivery(this.db, report, at);
    });
  }

  /** Every delivery report, in the world's order. */
  deliveries(): DeliveryRow[] {
    return allDeliveries(this.db);
  }

  /**
   * Shows a fence (epoch) for a key and, when given, for its job: false when a
   * higher one was already shown for either (the caller's lease has moved on),
   * else records it as their floor. Call inside transaction().
   */
  admitFence(key: string, fence: number, job?: string | null): boolean {
    return admitFence(this.db, key, fence, job);
  }

  /** The effects applied under a key, oldest first (several for a non-idempotent tool). */
  effectsFor(key: string): EffectRow[] {
    return effectsFor(this.db, key);
  }

  /** Every applied effect, in order. */
  effects(): EffectRow[] {
    return allEffects(this.db);
  }

  /** Every call received, in order. */
  calls(): CallRow[] {
    return allCalls(this.db);
  }

  /** Closes the connection; a second close does nothing. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
