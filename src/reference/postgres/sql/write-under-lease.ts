import { CLOCK, firstRow, type Queryable } from '../../../adapters/pg/queryable.js';
import { HarnessError } from '../../../kernel/errors.js';
import type { Actor, JobStatus } from '../../../port/states.js';
import type { JobRow, Lease, LeaseWriteResult } from '../../job.js';
import { appendEvent } from './append-event.js';
import { iso, JOB_COLUMNS } from './columns.js';
import { wakeIdle } from './wake.js';

/** What a lease holder's write does to the row it still holds. */
export interface LeaseWritePlan {
  to: JobStatus;
  /** SQL assignments over `@name` parameters and `clock.now`, e.g. "result_digest = @digest"; `updated_at` is always set. */
  set: string;
  params?: Record<string, unknown>;
  reason: string;
  /** A release to retry: the delay before the next attempt, for the history. */
  delayMs?: number;
}

/** What a refused write was asking for, for its history row. */
export interface RefusedWrite {
  to: JobStatus;
  what: string;
}

// The fencing guard: the job, the worker, and the epoch of this very claim. A
// lease is held on a running job (a worker) or a compensating one (the coordinator).
export const FENCED_GUARD = `id = @jobId AND status IN ('running', 'compensating') AND leased_by = @workerId AND lease_fence = @fence`;

// Locked under the guard: a write in flight elsewhere on this job (a claim's
// sweep, a coordinator's release) is waited for, and once it commits the guard
// is checked again against what it wrote (READ COMMITTED's re-check), so a
// holder that lost its lease meanwhile is refused, never let through on a
// stale read. FOR NO KEY UPDATE: see claim.ts.
const heldUnder = (guard: string) => `SELECT ${JOB_COLUMNS} FROM agent_jobs WHERE ${guard} FOR NO KEY UPDATE`;
// Locked too: the refusal's read of the job and its history row must not fall between a concurrent claim's
// update and its event (a refusal naming attempt 2 after the claim of attempt 3 breaks the history's order).
const CURRENT = `SELECT status, leased_by, lease_fence, attempts FROM agent_jobs WHERE id = @jobId FOR NO KEY UPDATE`;

/**
 * Applies a lease holder's write in the caller's transaction: the row is read
 * and locked under the guard, `plan` decides the change from it, the row is
 * updated and the state change (if any: a heartbeat changes none) goes to the
 * history and wakes idle processes (./wake.ts); a write that leaves the lease
 * held (a renewal) says until when. A write the guard refuses changes nothing,
 * is recorded as a `refused` event and returned as refused, never dropped silently.
 */
export async function writeUnderLease(
  db: Queryable,
  lease: Lease,
  actor: Actor,
  plan: (held: JobRow) => LeaseWritePlan,
  onRefused: RefusedWrite,
  /** The SQL that says the lease is still the writer's (a broken variant weakens it). @default FENCED_GUARD */
  leaseGuard: string = FENCED_GUARD,
): Promise<LeaseWriteResult> {
  const guard = { jobId: lease.jobId, workerId: lease.workerId, fence: lease.fence };
  const held = await firstRow<JobRow>(db, heldUnder(leaseGuard), guard);
  if (!held) return refuse(db, lease, actor, onRefused);
  const write = plan(held);
  // The status the row has now, not the one the plan names: a write that sets none (a heartbeat) leaves it.
  const after = await firstRow<{ status: JobStatus; lease_until: string | null; written_at: string }>(
    db,
    `UPDATE agent_jobs SET ${write.set}, updated_at = clock.now FROM ${CLOCK} WHERE ${leaseGuard} ` +
      `RETURNING status, ${iso('lease_until')}, clock.now::text AS written_at`,
    { ...write.params, ...guard },
  );
  if (!after) throw new HarnessError('QD_PG_LOCKED_ROW_CHANGED', `job ${lease.jobId} changed under its row lock`);
  if (after.status !== held.status) {
    await appendEvent(db, {
      jobId: lease.jobId,
      kind: 'transition',
      from: held.status,
      to: after.status,
      attempt: held.attempts,
      fence: lease.fence,
      worker: lease.workerId,
      actor,
      reason: write.reason,
      delayMs: write.delayMs ?? null,
      at: after.written_at,
    });
    // Every status a holder writes gives its lease up (done, retry, review, compensating): a retry due later, a saga
    // for the coordinator, one job fewer running for a worker waiting to drain. A renewal changes none and wakes nobody.
    await wakeIdle(db);
  }
  // A lease still held after the write: a renewal, whose holder is told the lease's new end.
  return after.lease_until === null ? { ok: true, status: after.status } : { ok: true, status: after.status, leaseUntil: after.lease_until };
}

/** Records a refused write (what the job is now, and whose stale lease asked) and says what the store holds. */
async function refuse(db: Queryable, lease: Lease, actor: Actor, onRefused: RefusedWrite): Promise<LeaseWriteResult> {
  const current = await firstRow<{ status: JobStatus; leased_by: string | null; lease_fence: number; attempts: number }>(db, CURRENT, {
    jobId: lease.jobId,
  });
  if (!current) return { ok: false, code: 'QD_LEASE_LOST', current: null };
  const holder = current.leased_by ? `held by ${current.leased_by} under fence ${current.lease_fence}` : 'not leased';
  await appendEvent(db, {
    jobId: lease.jobId,
    kind: 'refused',
    from: current.status,
    to: onRefused.to,
    attempt: current.attempts,
    fence: lease.fence,
    worker: lease.workerId,
    actor,
    reason: `${onRefused.what} refused: lease of ${lease.workerId} under fence ${lease.fence} was lost (job is ${current.status}, ${holder})`,
  });
  return { ok: false, code: 'QD_LEASE_LOST', current: { status: current.status, leasedBy: current.leased_by, fence: current.lease_fence } };
}
