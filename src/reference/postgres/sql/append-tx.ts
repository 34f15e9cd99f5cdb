import { type Queryable, run } from '../../../adapters/pg/queryable.js';
import type { TxEntry } from '../../../port/checkpoint.js';
import type { Lease } from '../../job.js';

const COLUMNS = `job_id, step_id, action, idempotency_key, status, external_reference, compensation_status, attempt, epoch, worker, detail, error_kind`;

// Fenced like every other write of a lease holder, in one statement: the
// attempt and the epoch come from the row it holds. FOR SHARE makes the guard
// hold until the checkpoint commits: a claim's sweep or a release in flight on
// this job is waited for and the guard re-checked against what it wrote, and
// none can start before this commits. A stale holder's checkpoint never lands
// after the epoch it lost. `at` is the column's default, the server's clock.
const BY_HOLDER = `
INSERT INTO agent_tx_log (${COLUMNS})
SELECT id, @stepId::text, @action::text, @key::text, @status::text, @externalReference::text, @compensationStatus::text,
       attempts, lease_fence, @workerId::text, @detail::text, @errorKind::text
FROM agent_jobs
WHERE id = @jobId AND status IN ('running', 'compensating') AND leased_by = @workerId AND lease_fence = @fence
FOR SHARE`;

// For writers whose right to write was checked in the same transaction (a
// coordinator releasing an expired lease, a person's requeue).
const CHECKED = `
INSERT INTO agent_tx_log (${COLUMNS})
VALUES (@jobId, @stepId, @action, @key, @status, @externalReference, @compensationStatus, @attempt, @epoch, @workerId, @detail, @errorKind)`;

function fields(entry: TxEntry) {
  return {
    stepId: entry.stepId,
    action: entry.action,
    key: entry.key,
    status: entry.status,
    externalReference: entry.externalReference ?? null,
    compensationStatus: entry.compensationStatus ?? null,
    detail: entry.detail ?? null,
    errorKind: entry.errorKind ?? null,
  };
}

/** Appends a checkpoint if `lease` still holds the job; false when it no longer does. One statement: no transaction needed. */
export async function appendTx(db: Queryable, lease: Lease, entry: TxEntry): Promise<boolean> {
  return (await run(db, BY_HOLDER, { ...fields(entry), jobId: lease.jobId, workerId: lease.workerId, fence: lease.fence })) === 1;
}

/** Appends a checkpoint whose writer the caller checked, in the caller's transaction. */
export async function appendCheckedTx(
  db: Queryable,
  writer: { jobId: number; attempt: number; epoch: number; worker: string },
  entry: TxEntry,
): Promise<void> {
  await run(db, CHECKED, { ...fields(entry), jobId: writer.jobId, attempt: writer.attempt, epoch: writer.epoch, workerId: writer.worker });
}
