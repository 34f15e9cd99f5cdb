import { blockThisThread } from '../../../kernel/block-thread.js';
import { utc } from '../../../kernel/clock.js';
import type { JobStatus } from '../../../port/states.js';
import type { JobRow } from '../../job.js';
import { type Db, statement, transactionOf } from '../store.js';
import { appendEvent } from './append-event.js';
import { type ClaimRules, REFERENCE_CLAIM_RULES } from './claim-rules.js';
import { claimSql } from './claim-sql.js';

/** Who claims, when, and for how long. */
export interface ClaimInput {
  workerId: string;
  now: number;
  leaseMs: number;
  skewMarginMs: number;
}

/** How a worker's claim reaches the store: the reference claim below, or a variant's. */
export type Claimer = (db: Db, input: ClaimInput) => JobRow | null;

/**
 * A claim made by `rules` (each rule not given is the reference's): sweep
 * expired leases, look up the next ready job, take it under a fresh lease,
 * record the claim. Null when nothing is ready, or when the take finds the job
 * gone (only possible outside one transaction). The reference and the broken
 * variants differ only in the rules.
 */
export function claimWith(given: Partial<ClaimRules> = {}): Claimer {
  const rules: ClaimRules = { ...REFERENCE_CLAIM_RULES, ...given };
  const sql = claimSql(rules);
  const sources = new Map(rules.alsoFrom.map((s) => [s.status, s]));
  const sweeper = rules.sweep;
  const sweep = (db: Db, input: ClaimInput) =>
    sweeper?.(db, { now: input.now, skewMarginMs: input.skewMarginMs, actor: 'worker', worker: input.workerId });
  const claimOnce = (db: Db, input: ClaimInput): JobRow | null => {
    const at = utc(input.now);
    if (sweeper) {
      if (rules.oneTransaction) sweep(db, input);
      else transactionOf(db, sweep).immediate(db, input);
    }
    const params = Object.assign({ at }, ...rules.alsoFrom.map((s) => s.params(input.now))) as Record<string, unknown>;
    const next = statement(db, sql.lookUp).get(params) as { id: number; status: JobStatus } | undefined;
    if (!next) return null;
    blockThisThread(rules.workMs);
    const job = statement(db, sql.take).get({ id: next.id, workerId: input.workerId, leaseUntil: utc(input.now + input.leaseMs), at }) as
      | JobRow
      | undefined;
    if (!job) return null;
    // What the look-up saw is what this claim believes it changed (outside one transaction, perhaps wrongly).
    const source = sources.get(next.status);
    if (source) source.record(db, job, at);
    else recordClaim(db, job, next.status as 'pending' | 'retry', at);
    return job;
  };
  return rules.oneTransaction ? (db, input) => transactionOf(db, claimOnce).immediate(db, input) : claimOnce;
}

/**
 * Claims the oldest ready job in one immediate write transaction (no other
 * writer can slip between the look-up and the update), counting the attempt and
 * taking a fresh lease with a new fence. Null when nothing is ready.
 */
export const claim: Claimer = claimWith(REFERENCE_CLAIM_RULES);

/** Records a claim in the history: the job moved from `from` to running under its new lease. */
export function recordClaim(db: Db, job: JobRow, from: 'pending' | 'retry', at: string): void {
  appendEvent(db, {
    jobId: job.id,
    kind: 'transition',
    from,
    to: 'running',
    attempt: job.attempts,
    fence: job.lease_fence,
    worker: job.leased_by,
    actor: 'worker',
    reason: `claimed by ${job.leased_by}, lease until ${job.lease_until}`,
    at,
  });
}
