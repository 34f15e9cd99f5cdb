import type { JobSnapshot } from '../../port/snapshot.js';
import { compensationKey, type PlanStep } from '../../saga/plan.js';
import type { TxRow } from '../../saga/tx-log.js';
import { toolMetadata } from '../../world/catalogue.js';
import type { EffectRow } from '../../world/ledger.js';
import {
  acceptedByKey,
  defineInvariant,
  effectLabel,
  evidenceList,
  type Findings,
  groupEffectsByKey,
  jobLabel,
  planOf,
  sideEffectSteps,
  stepEffects,
  txByJob,
  txLabel,
} from './support.js';

/*
 * The world's ledger (the ground truth, not the queue's word) against the
 * saga's transaction log, for every job whatever its end (done, review,
 * compensated, or stuck):
 *   - no key is applied twice. An idempotent tool cannot get two rows under
 *     one key by construction of the world; two rows there mean the world's
 *     dedupe broke, which is reported too;
 *   - a step the log says succeeded (its last execute or reconcile with an
 *     outcome is a success) is in the ledger exactly once;
 *   - a step the log says cannot have taken effect (no call of it started, or
 *     every call failed before applying or was reconciled as not executed) is
 *     not in the ledger at all: the world applied an effect the log denies;
 *   - a done job has every side-effect step in the ledger exactly once;
 *   - a compensation the log says succeeded is in the ledger exactly once, and
 *     one never started is not in it.
 * A step whose outcome the log leaves in doubt (an unknown outcome, or a call
 * never finished) may be in the ledger once or not at all.
 * Judged: each side-effect step of a job compared with the ledger.
 */

/** What the log says of one step: whether it claims the step succeeded, and whether the step may have taken effect at all. */
export function stepClaims(rows: readonly TxRow[]): { succeeded: TxRow | undefined; mayHaveHappened: boolean } {
  let applied = false;
  let inFlight = false;
  let outcome: TxRow | undefined;
  for (const row of rows) {
    if (row.action !== 'execute' && row.action !== 'reconcile') continue;
    if (row.status === 'started') {
      inFlight = true;
      continue;
    }
    inFlight = false;
    outcome = row;
    if (row.status === 'success' || row.status === 'unknown') applied = true;
    // 'failed': this call failed before applying; an earlier one may still have applied.
    if (row.status === 'not_executed') applied = false;
  }
  return { succeeded: outcome?.status === 'success' ? outcome : undefined, mayHaveHappened: applied || inFlight };
}

function listed(effects: readonly EffectRow[]): string {
  return effects.length > 0 ? `: ${effects.map(effectLabel).join('; ')}` : '';
}

/** One side-effect step of one job, its log against the ledger. */
function checkStep(found: Findings, job: JobSnapshot, step: PlanStep, key: string, rows: readonly TxRow[], applied: readonly EffectRow[]): void {
  const label = `${jobLabel(job)} step ${step.step_id} (${step.tool})`;
  const { succeeded, mayHaveHappened } = stepClaims(rows);
  if (job.status === 'done' && applied.length !== 1) {
    found.breach(
      `${jobLabel(job)} is done, but step ${step.step_id} (${step.tool}) is in the ledger ${applied.length} times under key ${key}${listed(applied)}`,
    );
  } else if (succeeded && applied.length !== 1) {
    found.breach(
      `${label}: the log says it succeeded (${txLabel(succeeded)}), but the ledger holds it ${applied.length} times under key ${key}${listed(applied)}`,
    );
  } else if (!mayHaveHappened && applied.length > 0) {
    const last = rows.filter((row) => row.action === 'execute' || row.action === 'reconcile').pop();
    found.breach(
      `${label}: the log says it cannot have taken effect (${last ? `last: ${txLabel(last)}` : 'no call of it was ever started'}), ` +
        `yet the world applied it under key ${key}${listed(applied)}`,
    );
  }
}

/** One step's compensation, its log against the ledger's compensation effects. */
function checkCompensation(found: Findings, job: JobSnapshot, step: PlanStep, rows: readonly TxRow[], applied: readonly EffectRow[]): void {
  const comp = rows.filter((row) => row.action === 'compensate');
  const succeeded = comp.find((row) => row.status === 'success');
  const key = compensationKey(job.key, step.step_id);
  if (succeeded && applied.length !== 1) {
    found.breach(
      `${jobLabel(job)}: the log says step ${step.step_id}'s compensation succeeded (${txLabel(succeeded)}), ` +
        `but the ledger holds ${applied.length} compensation(s) of it${listed(applied)}`,
    );
  } else if (!comp.some((row) => row.status === 'started') && applied.length > 0) {
    found.breach(
      `${jobLabel(job)}: step ${step.step_id}'s compensation was never started in the log, yet the world applied it under key ${key}${listed(applied)}`,
    );
  }
}

/** No effect applied twice for one key; the transaction log and the ledger agree on every job's effects, whatever its end. */
export const noDuplicateEffect = defineInvariant({
  id: 'no-duplicate-effect',
  // The design's words; the header comment says all it checks.
  statement:
    'no non-idempotent effect is applied twice for one key; every done job has its effects exactly once; ' +
    "the transaction log and the ledger agree on every job's effects, whatever its end",
  needs: [],
  judge: (evidence, found) => {
    const byKey = groupEffectsByKey(evidence);
    const effects = evidenceList(evidence, 'effects');
    if (effects.length === 0) found.note('the ledger holds no effect');
    for (const [key, applied] of byKey) {
      if (applied.length < 2) continue;
      const tools = [...new Set(applied.map((e) => e.tool))];
      const idempotent = applied.every((e) => e.idempotent && toolMetadata(e.tool)?.idempotent !== false);
      const what = idempotent ? 'idempotent by key, yet' : 'not idempotent,';
      found.breach(`key ${key} (${tools.join(', ')}, ${what} applied ${applied.length} times): ${applied.map(effectLabel).join('; ')}`);
    }
    const compensationsOf = (stepKey: string) => effects.filter((effect) => effect.compensates === stepKey);
    const accepted = acceptedByKey(evidence);
    const txs = txByJob(evidence);
    for (const job of evidenceList(evidence, 'jobs')) {
      const lookup = planOf(job, accepted);
      if (lookup.plan === null) {
        found.note(`${lookup.problem}: its effects were not counted`);
        continue;
      }
      const rows = txs.get(job.id) ?? [];
      for (const { step, key } of sideEffectSteps(job, lookup.plan)) {
        found.judged();
        const mine = rows.filter((row) => row.step_id === step.step_id);
        checkStep(found, job, step, key, mine, stepEffects(byKey, key));
        checkCompensation(found, job, step, mine, compensationsOf(key));
      }
    }
  },
});
