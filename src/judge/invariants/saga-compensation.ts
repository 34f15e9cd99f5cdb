import type { JobSnapshot, Transition } from '../../port/snapshot.js';
import { type Plan, stepKey } from '../../saga/plan.js';
import type { TxRow } from '../../saga/tx-log.js';
import type { EffectRow } from '../../world/ledger.js';
import {
  acceptedByKey,
  clip,
  defineInvariant,
  effectLabel,
  eventLabel,
  evidenceList,
  type Findings,
  groupEffectsByKey,
  historyByJob,
  jobLabel,
  planOf,
  stepEffects,
  txByJob,
  txLabel,
} from './support.js';

/*
 * A saga is judged on what the transaction log and the world's ledger show,
 * for every job whose history went running→compensating:
 *   - compensations run in reverse plan order (by each step's first
 *     compensate started/skipped row), and only for steps that may have taken
 *     effect (a success, an unknown outcome or an unfinished call in the log, or
 *     an effect in the ledger);
 *   - a compensation that failed with no later success is an incident, and the
 *     saga ends in review with outcome compensation_failed, never compensated;
 *   - "compensated" means every step that took effect (by its checkpoint, or by
 *     the ledger: a checkpoint can be lost, an effect cannot) is covered, each
 *     reversible one by a compensate success and exactly one compensation
 *     effect in the ledger (EffectRow.compensates = the step's key), each
 *     irreversible one by a skipped row naming it for a person.
 * The review reason is judged only when the saga's end (compensating→review)
 * is the job's last change: a person may have requeued it since. Judged: each
 * saga judged to its end (its order, its coverage and its outcome).
 */

interface Saga {
  found: Findings;
  job: JobSnapshot;
  label: string;
  plan: Plan;
  rows: readonly TxRow[];
  byKey: Map<string, EffectRow[]>;
  compensationsOf: Map<string, EffectRow[]>;
  incidents: ReadonlySet<string>;
  /** The saga's end is the job's last change, so its review reason is the saga's verdict. */
  final: boolean;
}

/** What the log and the ledger say of each step: whether it took effect, and whether it may have. */
function stepEvidence(saga: Saga): { tookEffect(stepId: string): boolean; mayHaveHappened(stepId: string): boolean } {
  const effectRows = (stepId: string) =>
    saga.rows.filter((row) => row.step_id === stepId && (row.action === 'execute' || row.action === 'reconcile'));
  const inLedger = (stepId: string): boolean => stepEffects(saga.byKey, stepKey(saga.job.key, stepId)).length > 0;
  return {
    // Took effect: the world has it, or the log says it succeeded last. Compensation must cover these.
    tookEffect: (stepId) => effectRows(stepId).pop()?.status === 'success' || inLedger(stepId),
    // May have happened: a success or an unknown outcome not since reconciled as not executed, or a call
    // still in flight. Compensating such a step is right even when the world turns out not to have it.
    mayHaveHappened(stepId) {
      let applied = false;
      let inFlight = false;
      for (const row of effectRows(stepId)) {
        inFlight = row.status === 'started';
        if (row.status === 'success' || row.status === 'unknown') applied = true;
        if (row.status === 'not_executed') applied = false;
      }
      return applied || inFlight || inLedger(stepId);
    },
  };
}

/** The first started or skipped row of each step, in log order, walks the plan backwards, and only over steps that may have happened. */
function checkOrder(saga: Saga, comp: readonly TxRow[], mayHaveHappened: (stepId: string) => boolean): void {
  const { found, label, plan } = saga;
  const order: Array<{ index: number; row: TxRow }> = [];
  const seen = new Set<string>();
  for (const row of comp) {
    if ((row.status !== 'started' && row.status !== 'skipped') || seen.has(row.step_id)) continue;
    seen.add(row.step_id);
    const index = plan.steps.findIndex((step) => step.step_id === row.step_id);
    if (index < 0) found.breach(`${label}: ${txLabel(row)} compensates a step its plan does not have`);
    else order.push({ index, row });
  }
  for (let i = 1; i < order.length; i++) {
    const before = order[i - 1];
    const after = order[i];
    if (before && after && after.index > before.index) {
      found.breach(
        `${label}: compensated out of order: ${after.row.step_id} (step ${after.index + 1}, ${txLabel(after.row)}) after ${before.row.step_id} ` +
          `(step ${before.index + 1}, ${txLabel(before.row)}); reverse plan order undoes ${after.row.step_id} first`,
      );
    }
  }
  for (const { row } of order) {
    if (!mayHaveHappened(row.step_id)) {
      found.breach(
        `${label}: ${txLabel(row)} compensates step ${row.step_id}, which cannot have taken ` +
          `effect (no success, unknown or unfinished call in the log, nothing in the ledger)`,
      );
    }
  }
}

/** Failed compensations with no later success or skip for their step. */
function unresolvedFailures(comp: readonly TxRow[]): Map<string, TxRow> {
  const unresolved = new Map<string, TxRow>();
  for (const row of comp) {
    if (row.status === 'failed') unresolved.set(row.step_id, row);
    if (row.status === 'success' || row.status === 'skipped') unresolved.delete(row.step_id);
  }
  return unresolved;
}

/** A saga's end: a failed compensation is an incident and ends compensation_failed; nothing else may end it but compensated. */
function checkEnding(saga: Saga, unresolved: ReadonlyMap<string, TxRow>): void {
  const { found, job, label } = saga;
  const reason = job.reviewReason ?? '';
  const outcome = job.outcome;
  for (const [stepId, row] of unresolved) {
    if (!saga.incidents.has(stepId))
      found.breach(
        `${label}: compensation of step ${stepId} failed (${txLabel(row)}) and was never retried to success, but no incident was recorded for it`,
      );
    if (outcome !== 'compensation_failed') {
      found.breach(
        `${label}: compensation of step ${stepId} failed (${txLabel(row)}), yet the saga ended ` +
          `${outcome ?? '(no outcome)'} (reason ${clip(reason, 80)}), not compensation_failed`,
      );
    }
  }
  if (outcome === 'compensation_failed' && saga.incidents.size === 0)
    found.breach(`${label}: ended compensation_failed but no incident was recorded for a person`);
  if (outcome !== 'compensation_failed' && outcome !== 'compensated') {
    found.breach(
      `${label}: its saga ended in review as ${outcome ?? '(no outcome)'} (reason ${clip(reason, 80)}), neither compensated nor compensation_failed`,
    );
  }
}

/** "Compensated" covers every step that took effect: a reversible one by one compensation in the ledger, an irreversible one named for a person. */
function checkCoverage(saga: Saga, comp: readonly TxRow[], tookEffect: (stepId: string) => boolean): void {
  const { found, job, label } = saga;
  for (const step of saga.plan.steps) {
    if (!step.has_side_effect || !tookEffect(step.step_id)) continue;
    const key = stepKey(job.key, step.step_id);
    const mine = comp.filter((row) => row.step_id === step.step_id);
    if (step.compensation === null) {
      if (!mine.some((row) => row.status === 'skipped' || row.status === 'success')) {
        found.breach(
          `${label}: ended compensated, but irreversible step ${step.step_id} (${step.tool}) took effect and no compensate skipped row names it for a person`,
        );
      }
      continue;
    }
    if (!mine.some((row) => row.status === 'success')) {
      const last = mine[mine.length - 1];
      found.breach(
        `${label}: ended compensated, but step ${step.step_id} (${step.tool}) took effect ` +
          `and was not compensated (${last ? `last: ${txLabel(last)}` : 'no compensate row'})`,
      );
    }
    const applied = saga.compensationsOf.get(key) ?? [];
    if (applied.length !== 1) {
      const which = applied.length > 0 ? `: ${applied.map(effectLabel).join('; ')}` : '';
      found.breach(
        `${label}: ended compensated, but the ledger holds ${applied.length} compensation(s) of step ${step.step_id} (key ${key})${which}`,
      );
    }
  }
}

/** Judges one saga; true when it was judged to its end (its outcome too), not only its order so far. */
function checkSaga(saga: Saga): boolean {
  const { found, job, label, plan } = saga;
  const comp = saga.rows.filter((row) => row.action === 'compensate');
  const { tookEffect, mayHaveHappened } = stepEvidence(saga);
  checkOrder(saga, comp, mayHaveHappened);
  for (const step of plan.steps) {
    const applied = saga.compensationsOf.get(stepKey(job.key, step.step_id)) ?? [];
    if (applied.length > 1)
      found.breach(`${label}: step ${step.step_id}'s compensation was applied ${applied.length} times: ${applied.map(effectLabel).join('; ')}`);
  }
  // The review reason is the saga's verdict only when its end is the job's last change; an unfinished saga is no-lost-job's finding.
  if (!saga.final || job.status !== 'review') return false;
  checkEnding(saga, unresolvedFailures(comp));
  if (job.outcome === 'compensated') checkCoverage(saga, comp, tookEffect);
  return true;
}

/** After a failed step, completed steps are compensated in reverse order; a failed compensation ends in manual intervention, never in "compensated". */
export const sagaCompensation = defineInvariant({
  id: 'saga-compensation',
  statement:
    'after a failed step, completed steps are compensated in reverse order; a failed compensation ends in manual intervention, never in "compensated"',
  needs: ['history'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    const txs = txByJob(evidence);
    const accepted = acceptedByKey(evidence);
    const byKey = groupEffectsByKey(evidence);
    const compensationsOf = new Map<string, EffectRow[]>();
    for (const effect of evidenceList(evidence, 'effects')) {
      if (effect.compensates) compensationsOf.set(effect.compensates, [...(compensationsOf.get(effect.compensates) ?? []), effect]);
    }
    let sagas = 0;
    for (const job of evidenceList(evidence, 'jobs')) {
      const label = jobLabel(job);
      const history: Transition[] = histories.get(job.id) ?? [];
      const transitions = history.filter((e) => e.kind === 'transition');
      const began = transitions.find((e) => e.from === 'running' && e.to === 'compensating');
      const rows = txs.get(job.id) ?? [];
      if (!began) {
        const stray = rows.find((row) => row.action === 'compensate');
        if (stray) found.breach(`${label}: ${txLabel(stray)}, but the job never went to compensating`);
        if (job.status === 'review' && (job.outcome === 'compensated' || job.outcome === 'compensation_failed')) {
          found.breach(`${label}: ended ${job.outcome}, but the job never went to compensating`);
        }
        continue;
      }
      sagas++;
      const lookup = planOf(job, accepted);
      if (lookup.plan === null) {
        found.note(`${lookup.problem}: its saga was not judged`);
        continue;
      }
      const last = transitions[transitions.length - 1];
      const final = last !== undefined && last.from === 'compensating' && last.to === 'review';
      if (!final && last && last.from !== 'compensating' && job.status !== 'compensating') {
        found.note(`${label}: changed again after its saga (${eventLabel(last)}): its review reason was not judged`);
      }
      const incidents = new Set(
        evidenceList(evidence, 'incidents')
          .filter((i) => i.job_id === job.id)
          .map((i) => i.step_id),
      );
      if (checkSaga({ found, job, label, plan: lookup.plan, rows, byKey, compensationsOf, incidents, final })) found.judged();
    }
    if (sagas === 0) found.note('no saga was compensated in this drill');
  },
});
