import type { Actor, JobStatus } from '../../../port/states.js';
import type { JobRow, Lease, LeaseWriteResult } from '../../job.js';
import { type Db, statement, transactionOf } from '../store.js';
import { appendEvent } from './append-event.js';

/** What a lease holder's write does to the row it still holds. */
export interface LeaseWritePlan {
  to: JobStatus;
  /** SQL assignments, e.g. "result_digest = @digest"; `updated_at` is always set. */
  set: string;
  params?: Record<string, unknown>;
  reason: string;
  /** A release to retry: the delay before the next attempt, for the history. */
  delayMs?: number;
}

// The fencing guard: the job, the worker, and the fence of this very claim. A
// lease is held on a running job (a worker) or a compensating one (the coordinator).
const FENCED = `id = @jobId AND status IN ('running', 'compensating') AND leased_by = @workerId AND lease_fence = @fence`;
const CURRENT = `SELECT status, leased_by, lease_fence, attempts FROM agent_jobs WHERE id = ?`;

/** How a lease holder's write reaches the store: the fenced write below, or a variant's. */
export type LeaseWriter = (
  db: Db,
  lease: Lease,
  at: string,
  actor: Actor,
  plan: (held: JobRow) => LeaseWritePlan,
  onRefused: { to: JobStatus; what: string },
) => LeaseWriteResult;

/**
 * A lease writer guarded by `guard` (SQL over @jobId, @workerId, @fence): the
 * row it holds is read and written under that guard in one immediate
 * transaction, the state change goes to the history, and a write the guard
 * does not let through is handed to `refuse`. The reference and the broken
 * variants differ only in these two.
 */
export function guardedLeaseWriter(guard: string, refuse: LeaseWriter): LeaseWriter {
  const held = `SELECT * FROM agent_jobs WHERE ${guard}`;
  const body: LeaseWriter = (db, lease, at, actor, plan, onRefused) => {
    const row = statement(db, held).get(lease) as JobRow | undefined;
    if (!row) return refuse(db, lease, at, actor, plan, onRefused);
    const write = plan(row);
    // The status the row has now, not the one the plan names: a write that sets none (a heartbeat) leaves it.
    const after = statement(db, `UPDATE agent_jobs SET ${write.set}, updated_at = @at WHERE ${guard} RETURNING status`).get({
      ...write.params,
      ...lease,
      at,
    }) as { status: JobStatus };
    if (after.status !== row.status) {
      appendEvent(db, {
        jobId: lease.jobId,
        kind: 'transition',
        from: row.status,
        to: after.status,
        attempt: row.attempts,
        fence: lease.fence,
        worker: lease.workerId,
        actor,
        reason: write.reason,
        at,
        delayMs: write.delayMs ?? null,
      });
    }
    return { ok: true, status: after.status };
  };
  return (db, lease, at, actor, plan, onRefused) => transactionOf(db, body).immediate(db, lease, at, actor, plan, onRefused);
}

/** The reference's refusal as a lease writer: the refused write recorded, and what the store holds returned (for a variant whose guard differs). */
export const refuseAndRecord: LeaseWriter = (db, lease, at, actor, _plan, onRefused) => refuse(db, lease, at, actor, onRefused);

/**
 * Applies a lease holder's write, or refuses it when the lease was lost, and
 * either way says so in the history: a refused write is returned to the caller
 * and recorded, never silently dropped (the queue sketch let it pass as 0 rows).
 */
export const writeUnderLease: LeaseWriter = guardedLeaseWriter(FENCED, refuseAndRecord);

function refuse(db: Db, lease: Lease, at: string, actor: Actor, onRefused: { to: JobStatus; what: string }): LeaseWriteResult {
  const current = statement(db, CURRENT).get(lease.jobId) as
    | { status: JobStatus; leased_by: string | null; lease_fence: number; attempts: number }
    | undefined;
  if (!current) return { ok: false, code: 'QD_LEASE_LOST', current: null };
  const holder = current.leased_by ? `held by ${current.leased_by} under fence ${current.lease_fence}` : 'not leased';
  appendEvent(db, {
    jobId: lease.jobId,
    kind: 'refused',
    from: current.status,
    to: onRefused.to,
    attempt: current.attempts,
    fence: lease.fence,
    worker: lease.workerId,
    actor,
    reason: `${onRefused.what} refused: lease of ${lease.workerId} under fence ${lease.fence} was lost (job is ${current.status}, ${holder})`,
    at,
  });
  return {
    ok: false,
    code: 'QD_LEASE_LOST',
    current: { status: current.status, leasedBy: current.leased_by, fence: current.lease_fence },
  };
}
