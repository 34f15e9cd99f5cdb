import type { JobStatus } from '../../../port/states.js';
import type { JobRow } from '../../job.js';
import type { Db } from '../store.js';
import { type SweepInput, sweepExpiredLeases } from './sweep-expired-leases.js';

/** Takes back expired leases inside the claim's transaction. */
export type Sweeper = (db: Db, input: SweepInput) => unknown;

/** A status a claim may also take a job from, besides pending and retry, and how such a claim is written to the history. */
export interface ClaimSource {
  status: JobStatus;
  /** SQL over @at and this source's `params`: when a job in `status` may be claimed. */
  ready: string;
  /** The look-up's parameters `ready` needs, from the claim's time. */
  params(now: number): Record<string, unknown>;
  /** Writes the claim of a job that was in `status` to the history. */
  record(db: Db, job: JobRow, at: string): void;
}

/**
 * What a claim does, one rule each: the reference's are REFERENCE_CLAIM_RULES,
 * and a broken variant differs from them in the rule it gets wrong.
 */
export interface ClaimRules {
  /** SQL over @at: which pending or retry jobs the look-up may find. */
  ready: string;
  /** Whether the take counts the attempt (`attempts = attempts + 1`); the fence moves either way. */
  countsAttempt: boolean;
  /** What the take's UPDATE checks besides the id: that the job is still in a status a claim takes from, or nothing. */
  guard: 'status' | 'id';
  /** How expired leases are taken back before the look-up (the reference: to retry, or review on the last attempt), or null: they are not. */
  sweep: Sweeper | null;
  /** Whether the sweep, the look-up and the take share one immediate transaction (else each commits on its own). */
  oneTransaction: boolean;
  /** How long the work between the look-up and the take lasts (a broken variant's race window: src/variants/work-window.ts; 0 in the reference). */
  workMs: number;
  /** Statuses a claim also takes from, besides pending and retry. */
  alsoFrom: readonly ClaimSource[];
}

/**
 * The reference claim. Oldest ready job first, as the queue sketch orders it; unlike
 * the queue sketch, a crashed worker's job is not stuck in `running`, because the
 * sweep in the same transaction has already put every expired lease back to
 * `retry`. One immediate transaction means no other writer slips between the
 * look-up and the take, and the take's status guard says so again in SQL.
 */
export const REFERENCE_CLAIM_RULES: ClaimRules = {
  ready: 'next_run_at <= @at AND attempts < max_attempts',
  countsAttempt: true,
  guard: 'status',
  sweep: sweepExpiredLeases,
  oneTransaction: true,
  workMs: 0,
  alsoFrom: [],
};
