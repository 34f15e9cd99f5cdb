import { utc } from '../../../kernel/clock.js';
import type { TxEntry } from '../../../port/checkpoint.js';
import type { Lease } from '../../job.js';
import { type Db, statement } from '../store.js';

const COLUMNS = `job_id, step_id, action, idempotency_key, status, external_reference, compensation_status, attempt, epoch, worker, detail, error_kind, at`;

// Fenced like every other write of a lease holder, in the same statement: a
// worker that lost its lease cannot checkpoint, so it cannot go on to call the
// world either. The attempt and the epoch come from the row it holds.
const BY_HOLDER = `
INSERT INTO agent_tx_log (${COLUMNS})
SELECT id, @stepId, @action, @key, @status, @externalReference, @compensationStatus, attempts, lease_fence, @worker, @detail, @errorKind, @at
FROM agent_jobs WHERE id = @jobId AND status IN ('running', 'compensating') AND leased_by = @worker AND lease_fence = @fence`;

// For writers whose right to write was checked in the same transaction (a
// coordinator releasing an expired lease, a person's requeue).
const CHECKED = `
INSERT INTO agent_tx_log (${COLUMNS})
VALUES (@jobId, @stepId, @action, @key, @status, @externalReference, @compensationStatus, @attempt, @epoch, @worker, @detail, @errorKind, @at)`;

function fields(entry: TxEntry, at: string) {
  return {
    stepId: entry.stepId,
    action: entry.action,
    key: entry.key,
    status: entry.status,
    externalReference: entry.externalReference ?? null,
    compensationStatus: entry.compensationStatus ?? null,
    detail: entry.detail ?? null,
    errorKind: entry.errorKind ?? null,
    at,
  };
}

/** Appends a checkpoint if `lease` still holds the job; false when it no longer does. */
export function appendTx(db: Db, lease: Lease, entry: TxEntry, now: number): boolean {
  return statement(db, BY_HOLDER).run({ ...fields(entry, utc(now)), jobId: lease.jobId, worker: lease.workerId, fence: lease.fence }).changes === 1;
}

/** Appends a checkpoint whose writer was checked by the caller, in the caller's transaction. */
export function appendCheckedTx(
  db: Db,
  writer: { jobId: number; attempt: number; epoch: number; worker: string },
  entry: TxEntry,
  now: number,
): void {
  statement(db, CHECKED).run({
    ...fields(entry, utc(now)),
    jobId: writer.jobId,
    attempt: writer.attempt,
    epoch: writer.epoch,
    worker: writer.worker,
  });
}
