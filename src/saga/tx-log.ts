import type { TxRow } from '../port/checkpoint.js';

export type { Incident, TxAction, TxEntry, TxRow, TxStatus } from '../port/checkpoint.js';

/*
 * Reading the transaction sketch's transaction log: where each step of a plan stands, from
 * its checkpoints. The log itself is kept by the saga store (src/port/checkpoint.ts).
 */

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

/** Every step's state, by step id, from a job's log (in order). */
export function stepStates(rows: readonly TxRow[]): Map<string, StepState> {
  const states = new Map<string, StepState>();
  // Per step: did a finished call possibly apply, and is a call still in flight?
  const applied = new Map<string, boolean>();
  const inFlight = new Map<string, boolean>();
  for (const row of rows) {
    const state = states.get(row.step_id) ?? {
      effect: undefined,
      mayHaveHappened: false,
      prepared: false,
      approvedBy: null,
      compensation: undefined,
    };
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
