import type { Claim, WriteResult } from '../port/delivery.js';
import type { JobSnapshot, Transition } from '../port/snapshot.js';
import type { JobEvent, JobRow, Lease, LeaseWriteResult } from './job.js';

/*
 * The reference store's rows in the port's words. The mapping is the
 * identity but for names: the lease fence is the epoch, ids become text.
 */

/** A job row as the judge reads it. */
export function toSnapshot(row: JobRow): JobSnapshot {
  return {
    id: String(row.id),
    key: row.idempotency_key,
    action: row.action,
    payload: row.payload_json,
    status: row.status,
    outcome: row.outcome ?? null,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    holder: row.leased_by,
    leaseUntil: row.lease_until,
    epoch: row.lease_fence,
    nextRunAt: row.next_run_at,
    lastError: row.last_error,
    reviewReason: row.review_reason,
    resultDigest: row.result_digest,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A history row as the judge reads it. */
export function toTransition(event: JobEvent): Transition {
  return {
    seq: event.id,
    jobId: String(event.job_id),
    kind: event.kind,
    from: event.from_status,
    to: event.to_status,
    attempt: event.attempt,
    epoch: event.fence,
    worker: event.worker,
    actor: event.actor as Transition['actor'],
    reason: event.reason,
    at: event.at,
    ...(event.delay_ms === null || event.delay_ms === undefined ? {} : { retryDelayMs: Number(event.delay_ms) }),
  };
}

/** A claimed (or compensating, or expired) row as its holder's claim. */
export function toClaim(row: JobRow): Claim {
  return {
    jobId: String(row.id),
    key: row.idempotency_key,
    action: row.action,
    payload: row.payload_json,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    epoch: row.lease_fence,
    token: null,
    holder: row.leased_by ?? '(nobody)',
    leaseUntil: row.lease_until,
  };
}

/** The lease a claim's writes are guarded by. */
export function leaseOf(claim: Pick<Claim, 'jobId' | 'holder' | 'epoch'>): Lease {
  return { jobId: Number(claim.jobId), workerId: claim.holder, fence: claim.epoch };
}

/** A store's write result in the port's words: applied, or refused with what the store held instead. */
export function toWriteResult(result: LeaseWriteResult): WriteResult {
  if (result.ok) return result;
  const current = result.current;
  const held = current
    ? `job is ${current.status}${current.leasedBy ? `, held by ${current.leasedBy} under epoch ${current.fence}` : ', not leased'}`
    : 'job not found';
  return { ok: false, refused: `lease lost (${held})` };
}
