import { utc } from '../kernel/clock.js';
import type { Lease } from '../queue/job.js';
import { statement, type Db } from '../adapters/sqlite/store.js';

export type TxAction = 'execute' | 'reconcile' | 'prepare' | 'approve' | 'compensate';
export type TxStatus = 'started' | 'success' | 'failed' | 'unknown' | 'not_executed' | 'skipped';

/** One row of the transaction log. */
export interface TxRow {
  id: number;
  job_id: number;
  step_id: string;
  action: TxAction;
  idempotency_key: string;
  status: TxStatus;
  external_reference: string | null;
  compensation_status: string | null;
  attempt: number;
  worker: string;
  detail: string | null;
  error_kind: string | null;
  at: string;
}

export interface TxEntry {
  stepId: string;
  action: TxAction;
  key: string;
  status: TxStatus;
  attempt: number;
  externalReference?: string | null;
  compensationStatus?: string | null;
  /** Already redacted. */
  detail?: string | null;
  /** For a failed call: the kind of its error (src/queue/errors.ts). */
  errorKind?: string | null;
}

/**
 * Who may write: the holder of a live lease (worker or coordinator), the
 * coordinator settling a job whose lease expired under `fence`, or a person.
 */
export type TxGuard =
  | { kind: 'lease'; lease: Lease }
  | { kind: 'expired'; jobId: number; fence: number; by: string }
  | { kind: 'human'; jobId: number; by: string };

const COLUMNS = `job_id, step_id, action, idempotency_key, status, external_reference, compensation_status, attempt, worker, detail, error_kind, at`;
const VALUES = `@jobId, @stepId, @action, @key, @status, @externalReference, @compensationStatus, @attempt, @worker, @detail, @errorKind, @at`;

// Fenced like every other write of a lease holder: a worker that lost its lease
// cannot checkpoint, so it cannot go on to call the world either.
const BY_LEASE = `
INSERT INTO agent_tx_log (${COLUMNS}) SELECT ${VALUES}
WHERE EXISTS (SELECT 1 FROM agent_jobs WHERE id = @jobId AND status IN ('running', 'compensating') AND leased_by = @holder AND lease_fence = @fence)`;
const BY_EXPIRED = `
INSERT INTO agent_tx_log (${COLUMNS}) SELECT ${VALUES}
WHERE EXISTS (SELECT 1 FROM agent_jobs WHERE id = @jobId AND status = 'running' AND lease_fence = @fence)`;
const BY_HUMAN = `INSERT INTO agent_tx_log (${COLUMNS}) VALUES (${VALUES})`;

/** Appends a checkpoint; false when the guard no longer holds (the lease was lost). */
export function appendTx(db: Db, guard: TxGuard, entry: TxEntry, now: number): boolean {
  const base = {
    stepId: entry.stepId,
    action: entry.action,
    key: entry.key,
    status: entry.status,
    attempt: entry.attempt,
    externalReference: entry.externalReference ?? null,
    compensationStatus: entry.compensationStatus ?? null,
    detail: entry.detail ?? null,
    errorKind: entry.errorKind ?? null,
    at: utc(now),
  };
  switch (guard.kind) {
    case 'lease':
      return (
        statement(db, BY_LEASE).run({
          ...base,
          jobId: guard.lease.jobId,
          worker: guard.lease.workerId,
          holder: guard.lease.workerId,
          fence: guard.lease.fence,
        }).changes === 1
      );
    case 'expired':
      return statement(db, BY_EXPIRED).run({ ...base, jobId: guard.jobId, worker: guard.by, fence: guard.fence }).changes === 1;
    case 'human':
      return statement(db, BY_HUMAN).run({ ...base, jobId: guard.jobId, worker: guard.by }).changes === 1;
    default: {
      const unreachable: never = guard;
      throw new Error(`unknown guard ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A job's whole transaction log, in order. */
export function readTxLog(db: Db, jobId: number): TxRow[] {
  return statement(db, 'SELECT * FROM agent_tx_log WHERE job_id = ? ORDER BY id').all(jobId) as TxRow[];
}

/** Where one step stands, rebuilt from the log. */
export interface StepState {
  /** The step's effect: the latest execute or reconcile checkpoint. */
  effect: TxRow | undefined;
  /**
   * Whether its effect may have happened at some point, even if a later attempt
   * failed: a success or an unknown outcome counts until a reconciliation says
   * not executed; a call still in flight counts; a call that failed before
   * applying does not. Compensation must cover every such step.
   */
  mayHaveHappened: boolean;
  prepared: boolean;
  approvedBy: string | null;
  /** The latest compensation checkpoint. */
  compensation: TxRow | undefined;
}

/** Every step's state, by step id. */
export function stepStates(db: Db, jobId: number): Map<string, StepState> {
  const states = new Map<string, StepState>();
  // Per step: did a finished call possibly apply, and is a call still in flight?
  const applied = new Map<string, boolean>();
  const inFlight = new Map<string, boolean>();
  for (const row of readTxLog(db, jobId)) {
    const state = states.get(row.step_id) ?? { effect: undefined, mayHaveHappened: false, prepared: false, approvedBy: null, compensation: undefined };
    if (row.action === 'execute' || row.action === 'reconcile') {
      state.effect = row;
      inFlight.set(row.step_id, row.status === 'started');
      if (row.status === 'success' || row.status === 'unknown') applied.set(row.step_id, true);
      if (row.status === 'not_executed') applied.set(row.step_id, false);
      // 'failed': this call failed before applying; an earlier one may still have applied.
      state.mayHaveHappened = (applied.get(row.step_id) ?? false) || (inFlight.get(row.step_id) ?? false);
    }
    if (row.action === 'prepare' && row.status === 'success') state.prepared = true;
    if (row.action === 'approve' && row.status === 'success') state.approvedBy = row.worker;
    if (row.action === 'compensate') state.compensation = row;
    states.set(row.step_id, state);
  }
  return states;
}

/** Whether a step's effect may have happened without the log knowing its outcome. */
export function inDoubt(state: StepState | undefined): boolean {
  return state?.effect?.status === 'started' || state?.effect?.status === 'unknown';
}
