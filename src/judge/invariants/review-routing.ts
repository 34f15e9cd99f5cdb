import type { ErrorKind } from '../../kernel/job-errors.js';
import type { JobSnapshot, Transition } from '../../port/snapshot.js';
import { compensationKey, type Plan, type PlanStep, stepKey } from '../../saga/plan.js';
import { policyViolations } from '../../saga/policy.js';
import type { TxRow } from '../../saga/tx-log.js';
import { toolMetadata } from '../../world/catalogue.js';
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
  humanRequeueBetween,
  isClaim,
  jobLabel,
  type LeaseInterval,
  leaseOfAttempt,
  leasesOf,
  planOf,
  txByJob,
  txLabel,
} from './support.js';

/*
 * What must go to a person, read from the transaction log and the history:
 *   - unknown outcome: after a non-idempotent step's outcome was left in doubt
 *     (an execute `unknown`, or an execute `started` its holder never finished),
 *     the step is not executed again until a reconcile says `not_executed`;
 *     once applied it is never executed again; and when reconciliation cannot
 *     settle it (or its retry policy is manual_only) the job goes to review;
 *   - a call that failed for good (its checkpoint's error_kind permanent,
 *     business or policy: a PermanentError, a BusinessRuleError, an HTTP
 *     401/403, a PolicyViolationError): the holder
 *     does not send the job to retry, and no later claim happens unless a
 *     person requeued it from review;
 *   - exhausted retries: never a transition to retry on the last attempt, and a
 *     job that used every attempt and is not done ends in review;
 *   - a plan that breaks policy (src/saga/policy.ts) ends in review with
 *     nothing of it applied to the world and no step executed.
 *   - a job in review carries its reason, in the queue's own record: a person
 *     deciding what to do with it has nothing else to go on.
 * "Goes to review" is judged through attempt numbers (every checkpoint names
 * its attempt, every claim is one attempt), never by comparing clocks.
 * Judged: each job that had something to route (it used every attempt, a step
 * failed for good, a non-idempotent step's outcome was in doubt, or its plan
 * breaks policy).
 */

/** The error kinds (src/kernel/job-errors.ts) a checkpoint records for a call that failed for good: trying again cannot help. */
const FOR_GOOD: ReadonlySet<string | null> = new Set<ErrorKind>(['permanent', 'business', 'policy']);

/** A step's call that failed for good, by the kind its checkpoint recorded (never by its error's text). */
const failedForGood = (row: TxRow): boolean => row.action === 'execute' && row.status === 'failed' && FOR_GOOD.has(row.error_kind);

/** Repeating the step may apply its effect twice: it touches the world and its tool does not dedupe by key. */
function repeatIsHarmful(step: PlanStep): boolean {
  if (!step.has_side_effect) return false;
  const tool = toolMetadata(step.tool);
  return tool ? !tool.idempotent : !step.idempotent;
}

interface JobContext {
  found: Findings;
  job: JobSnapshot;
  label: string;
  history: readonly Transition[];
  leases: readonly LeaseInterval[];
  /** The job's whole transaction log. */
  rows: readonly TxRow[];
}

/**
 * A takeover, not a retry: the holder that met the cause lost its lease before
 * it could route the job (a worker paused past its lease, killed), the job was
 * never in review, and the next holder did what that one would have done: it
 * called nothing (no step executed under its attempt) and sent the job on to
 * review, or to compensation. What the queue must never do is try the call
 * again; a claim that only finishes the routing does not.
 */
function routingFinishedByNextHolder(ctx: JobContext, lease: LeaseInterval, next: Transition): boolean {
  if (!lease.end || isClaim(lease.end) || lease.end.to === 'review') return false;
  // Its holder's own release to retry is its decision, not a takeover (checkPermanent names it).
  if (lease.end.actor === 'worker' && lease.end.worker === lease.claim.worker) return false;
  const end = ctx.leases.find((candidate) => candidate.claim.seq === next.seq)?.end;
  if (!end || isClaim(end) || (end.to !== 'review' && end.to !== 'compensating')) return false;
  return !ctx.rows.some((row) => row.attempt === next.attempt && row.action === 'execute' && row.status === 'started');
}

/** The job went to review and a person sent it back between attempt `attempt` and the next claim; or, with no next claim, it ended in review. */
function routedToReview(ctx: JobContext, attempt: number, cause: string): void {
  const lease = leaseOfAttempt(ctx.leases, attempt);
  if (!lease) return; // a checkpoint under an attempt never claimed is single-holder's finding
  const next = ctx.history.find((event) => isClaim(event) && event.seq > lease.claim.seq);
  if (next) {
    if (!humanRequeueBetween(ctx.history, lease.claim.seq, next.seq) && !routingFinishedByNextHolder(ctx, lease, next)) {
      const via = lease.end && !isClaim(lease.end) ? ` (the lease ended ${eventLabel(lease.end)})` : '';
      ctx.found.breach(`${ctx.label}: ${cause}, yet it was claimed again without a person's requeue: ${eventLabel(next)}${via}`);
    }
  } else if (ctx.job.status !== 'review' && ctx.job.status !== 'running') {
    // Still running at the end is lease-released's and no-lost-job's finding, not a routing decision.
    ctx.found.breach(`${ctx.label}: ${cause}, yet it ended ${ctx.job.status}, not in review`);
  }
}

function checkStep(ctx: JobContext, step: PlanStep, rows: readonly TxRow[]): void {
  const at = `step ${step.step_id} (${step.tool}, not idempotent)`;
  let doubt: TxRow | undefined;
  let applied: TxRow | undefined;
  for (const row of rows) {
    if (row.action === 'execute' && row.status === 'started') {
      if (applied) ctx.found.breach(`${ctx.label}: ${at} executed again after it was applied: ${txLabel(row)} after ${txLabel(applied)}`);
      else if (doubt) {
        ctx.found.breach(
          `${ctx.label}: ${at} executed again while its outcome was in doubt: ${txLabel(row)} after ${txLabel(doubt)}, with no reconcile not_executed between`,
        );
      }
      doubt = row;
      applied = undefined;
      continue;
    }
    if (row.action !== 'execute' && row.action !== 'reconcile') continue;
    switch (row.status) {
      case 'success':
        applied = row;
        doubt = undefined;
        break;
      case 'failed':
      case 'not_executed':
        applied = undefined;
        doubt = undefined;
        break;
      case 'unknown':
        doubt = row;
        applied = undefined;
        if (row.action === 'reconcile') routedToReview(ctx, row.attempt, `${at} stayed unknown after reconciliation (${txLabel(row)})`);
        else if (step.retry_policy === 'manual_only')
          routedToReview(ctx, row.attempt, `${at} has an unknown outcome and retry policy manual_only (${txLabel(row)})`);
        break;
      default:
        break;
    }
  }
}

function checkPermanent(ctx: JobContext, rows: readonly TxRow[]): void {
  for (const row of rows) {
    if (!failedForGood(row)) continue;
    const cause = `step ${row.step_id} failed for good (${txLabel(row)}: ${clip(row.detail, 80)})`;
    const lease = leaseOfAttempt(ctx.leases, row.attempt);
    const end = lease?.end;
    if (lease && end && !isClaim(end) && end.to === 'retry' && end.worker === lease.claim.worker && end.actor === 'worker') {
      ctx.found.breach(`${ctx.label}: ${cause}, yet its holder sent it to retry: ${eventLabel(end)}`);
    }
    routedToReview(ctx, row.attempt, cause);
  }
}

function checkExhausted(ctx: JobContext): void {
  for (const event of ctx.history) {
    if (event.kind === 'transition' && event.to === 'retry' && event.attempt >= ctx.job.maxAttempts) {
      ctx.found.breach(`${ctx.label}: sent to retry on its last attempt (${event.attempt} of ${ctx.job.maxAttempts}): ${eventLabel(event)}`);
    }
  }
  if ((ctx.job.status === 'retry' || ctx.job.status === 'pending') && ctx.job.attempts >= ctx.job.maxAttempts) {
    ctx.found.breach(`${ctx.label}: used ${ctx.job.attempts} of ${ctx.job.maxAttempts} attempts and ended ${ctx.job.status}, not in review`);
  }
}

/** Whether a non-idempotent step's outcome was ever in doubt: an unknown outcome, or a call its holder never finished. */
function doubted(step: PlanStep, rows: readonly TxRow[]): boolean {
  const mine = rows.filter((row) => row.step_id === step.step_id && (row.action === 'execute' || row.action === 'reconcile'));
  // A call is finished by the execute row after its started one; anything else after it (or nothing) left it in doubt.
  const unfinished = (i: number) => {
    const next = mine[i + 1];
    return !(next && next.action === 'execute' && next.status !== 'started');
  };
  return repeatIsHarmful(step) && mine.some((row, i) => row.status === 'unknown' || (row.status === 'started' && unfinished(i)));
}

/** Whether the job had anything to route: every attempt used, a permanent failure, a doubt on a non-idempotent step, a plan that breaks policy. */
function hadSomethingToRoute(job: JobSnapshot, rows: readonly TxRow[], plan: Plan | null): boolean {
  if (job.attempts >= job.maxAttempts) return true;
  if (rows.some(failedForGood)) return true;
  return plan !== null && (plan.steps.some((step) => doubted(step, rows)) || policyViolations(plan).length > 0);
}

/** Unknown outcomes of non-idempotent effects, permanent errors, policy violations and exhausted retries go to review, never to a blind retry. */
/** A job in review says why: without a reason, the person who must decide has nothing to go on. */
function checkReason({ found, job, label }: JobContext): void {
  if (job.status !== 'review' || (job.reviewReason ?? '').trim().length > 0) return;
  found.breach(`${label}: in review with no reason (review_reason ${JSON.stringify(job.reviewReason)}): nobody can tell why it is there`);
}

export const reviewRouting = defineInvariant({
  id: 'review-routing',
  statement:
    'an unknown outcome of a non-idempotent effect, a permanent error, a policy violation, and exhausted retries go to review, never to a blind ' +
    'retry; a job in review says why',
  needs: ['history', 'review'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    const txs = txByJob(evidence);
    const accepted = acceptedByKey(evidence);
    const byKey = groupEffectsByKey(evidence);
    for (const job of evidenceList(evidence, 'jobs')) {
      const history = histories.get(job.id) ?? [];
      const rows = txs.get(job.id) ?? [];
      const ctx: JobContext = { found, job, label: jobLabel(job), history, leases: leasesOf(history), rows };
      checkExhausted(ctx);
      checkPermanent(ctx, rows);
      checkReason(ctx);
      const lookup = planOf(job, accepted);
      if (hadSomethingToRoute(job, rows, lookup.plan)) found.judged();
      if (lookup.plan === null) {
        if (rows.length > 0) found.note(`${lookup.problem}: its unknown outcomes were not judged`);
        continue;
      }
      for (const step of lookup.plan.steps) {
        if (repeatIsHarmful(step))
          checkStep(
            ctx,
            step,
            rows.filter((row) => row.step_id === step.step_id),
          );
      }
      const violations = policyViolations(lookup.plan);
      if (violations.length === 0) continue;
      const why = `its plan breaks policy (${violations.slice(0, 3).join('; ')}${violations.length > 3 ? '; ...' : ''})`;
      if (job.status !== 'review') found.breach(`${ctx.label}: ${why}, yet it ended ${job.status}, not in review`);
      for (const step of lookup.plan.steps) {
        for (const key of [stepKey(job.key, step.step_id), compensationKey(job.key, step.step_id)]) {
          for (const effect of byKey.get(key) ?? [])
            found.breach(`${ctx.label}: ${why}, yet the world applied ${effectLabel(effect)} under key ${key}`);
        }
      }
      for (const row of rows.filter((r) => r.action === 'execute')) found.breach(`${ctx.label}: ${why}, yet a step ran: ${txLabel(row)}`);
    }
  },
});
