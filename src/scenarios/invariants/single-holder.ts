import type { JobEvent } from '../../queue/job.js';
import type { TxRow } from '../../saga/tx-log.js';
import type { Invariant } from '../evidence.js';
import {
  effectLabel,
  eventLabel,
  historyByJob,
  isClaim,
  jobLabel,
  judge,
  leaseOfAttempt,
  leasesOf,
  list,
  timeOf,
  txByJob,
  txLabel,
  type Findings,
  type LeaseInterval,
} from './support.js';

/*
 * Leases are rebuilt from the history alone: a claim (a transition to running,
 * with its fence and worker) opens one, the next transition out of running (or
 * a later claim) ends it. From that:
 *   - a claim while the previous lease is still open is two live holders;
 *   - every claim takes a new, larger fence, so no two claims share one;
 *   - once a job was claimed under fence F, a transition under a smaller fence
 *     is a stale holder's write that the store applied instead of refusing, and
 *     so is a worker's transition while no lease is live (its lease was swept
 *     and nobody has claimed the job since);
 *   - a transition out of running carries the fence of the lease it ends, and
 *     done or compensating is written by that lease's holder (a sweep of an
 *     expired lease may be written by another process, under the same fence).
 *
 * Checkpoints and effects name their attempt, and each attempt is one claim,
 * so they are matched to their lease by attempt number, not by time:
 *   - an execute or prepare checkpoint is written by the holder of its attempt;
 *   - a reconcile checkpoint by that holder, or by the coordinator that released
 *     that attempt's expired lease;
 *   - an effect in the ledger was applied by the worker that held its attempt.
 * Time is used only to place a checkpoint inside its lease, and conservatively:
 * the stamps come from different processes' clocks, so a row counts as outside
 * its lease only when it is further out than the drill's skew margin. A clock
 * skew fault larger than that margin can therefore show up here; the line gives
 * both stamps so a person can tell. Compensation claims leave no event (the
 * coordinator takes a lease without a state change), so compensate checkpoints
 * are only placed inside the job's compensating period. Two effects of one key
 * are not compared by time at all: the world's clock is not the queue's, and
 * a key applied twice is no-duplicate-effect's finding.
 */

function checkHistory(found: Findings, label: string, history: readonly JobEvent[], leases: readonly LeaseInterval[]): void {
  const fences = new Map<number, JobEvent>();
  let highest: JobEvent | undefined;
  for (const claim of history.filter(isClaim)) {
    const same = fences.get(claim.fence);
    if (same) found.breach(`${label}: two claims share fence ${claim.fence}: ${eventLabel(same)} and ${eventLabel(claim)}`);
    else if (highest && claim.fence < highest.fence) found.breach(`${label}: fence went backwards: ${eventLabel(claim)} after ${eventLabel(highest)}`);
    fences.set(claim.fence, claim);
    if (!highest || claim.fence > highest.fence) highest = claim;
  }
  for (const lease of leases) {
    const end = lease.end;
    if (end && isClaim(end)) {
      found.breach(`${label}: claimed by ${end.worker ?? '?'} (${eventLabel(end)}) while the lease of ${lease.claim.worker ?? '?'} (${eventLabel(lease.claim)}) was live: no transition out of running between them`);
    } else if (end) {
      if (end.fence !== lease.claim.fence) {
        found.breach(`${label}: ${eventLabel(end)} ends the lease of ${lease.claim.worker ?? '?'} under fence ${lease.claim.fence} (${eventLabel(lease.claim)}) with another fence`);
      } else if ((end.to_status === 'done' || end.to_status === 'compensating') && end.worker !== lease.claim.worker) {
        found.breach(`${label}: ${eventLabel(end)} was written by ${end.worker ?? '(nobody)'}, not by the holder ${lease.claim.worker ?? '?'} (${eventLabel(lease.claim)})`);
      }
    }
  }
  // A stale holder's transition: an applied change under a fence smaller than one
  // already claimed, or a worker's change when no lease was live at all (its
  // lease had been swept and nobody had claimed the job since).
  let claimed: JobEvent | undefined;
  let open: JobEvent | undefined;
  let ended: JobEvent | undefined;
  for (const event of history) {
    if (event.kind !== 'transition') continue;
    if (isClaim(event)) {
      if (!claimed || event.fence > claimed.fence) claimed = event;
      open = event;
      continue;
    }
    if (claimed && event.fence < claimed.fence) {
      found.breach(`${label}: a stale write was applied, not refused: ${eventLabel(event)} after ${claimed.worker ?? '?'} claimed it under fence ${claimed.fence} (${eventLabel(claimed)})`);
    } else if (event.actor === 'worker' && !open) {
      found.breach(`${label}: a worker's write was applied with no live lease: ${eventLabel(event)}${ended ? ` (the last lease ended ${eventLabel(ended)})` : ''}`);
    }
    if (event.from_status === 'running') {
      open = undefined;
      ended = event;
    }
  }
}

function checkTx(found: Findings, label: string, rows: readonly TxRow[], history: readonly JobEvent[], leases: readonly LeaseInterval[], marginMs: number): void {
  const periods = compensatingPeriods(history);
  for (const row of rows) {
    const at = timeOf(row.at);
    if (row.action === 'approve') continue; // a person's record, outside any lease by design
    if (row.action === 'compensate') {
      if (at === undefined) continue;
      const inside = periods.some(({ from, to }) => at >= from - marginMs && (to === undefined || at <= to + marginMs));
      if (!inside) found.breach(`${label}: ${txLabel(row)} was written outside the job's compensating period, when no coordinator could hold it`);
      continue;
    }
    const lease = leaseOfAttempt(leases, row.attempt);
    if (!lease) {
      found.breach(`${label}: ${txLabel(row)} is written under attempt ${row.attempt}, which the history never claimed`);
      continue;
    }
    const holder = lease.claim.worker;
    if (row.worker !== holder) {
      const releasedBy = lease.end && !isClaim(lease.end) && lease.end.actor === 'coordinator' && lease.end.worker === row.worker ? lease.end : undefined;
      if (row.action === 'reconcile' && releasedBy) {
        // The coordinator settles an expired lease in the same transaction as its release.
        const end = timeOf(releasedBy.at);
        if (at !== undefined && end !== undefined && Math.abs(at - end) > marginMs) {
          found.breach(`${label}: ${txLabel(row)} by the coordinator, but away from its release of the lease (${eventLabel(releasedBy)})`);
        }
        continue;
      }
      found.breach(`${label}: ${txLabel(row)} was written by ${row.worker}, but attempt ${row.attempt} was held by ${holder ?? '(nobody)'} (${eventLabel(lease.claim)})`);
      continue;
    }
    const start = timeOf(lease.claim.at);
    const end = lease.end ? timeOf(lease.end.at) : undefined;
    if (at !== undefined && start !== undefined && at < start - marginMs) {
      found.breach(`${label}: ${txLabel(row)} was written before its claim (${eventLabel(lease.claim)})`);
    } else if (at !== undefined && end !== undefined && lease.end && at > end + marginMs) {
      found.breach(`${label}: ${txLabel(row)} was written after ${holder ?? '?'}'s lease ended (${eventLabel(lease.end)}): a stale holder's checkpoint`);
    }
  }
}

/** When a job was compensating: from running→compensating to compensating→review (open at the end). */
function compensatingPeriods(history: readonly JobEvent[]): Array<{ from: number; to: number | undefined }> {
  const periods: Array<{ from: number; to: number | undefined }> = [];
  for (const event of history) {
    if (event.kind !== 'transition') continue;
    const at = timeOf(event.at);
    if (at === undefined) continue;
    if (event.to_status === 'compensating') periods.push({ from: at, to: undefined });
    const last = periods[periods.length - 1];
    if (event.from_status === 'compensating' && last && last.to === undefined) last.to = at;
  }
  return periods;
}

// The harness's record of a worker at the point right before its complete, and
// going on from there: a plain hit, or a pause or delay it came back from.
const WRITE_HIT = /(?:^\S+ at |^(?:pause|delay) at )before_complete job (\d+) attempt (\d+)/;

/**
 * The harness saw a worker reach the point right before its complete, after the
 * job had been claimed again under a later attempt: its write is stale. The
 * history must then hold that write, refused and recorded; when it holds
 * nothing, the store let the stale write pass silently (seed 000's 0-row
 * UPDATE), and nobody would ever know it happened.
 */
function checkStaleWrites(found: Findings, evidence: Parameters<Invariant['check']>[0], histories: Map<number, JobEvent[]>): void {
  const events = list(evidence.timeline);
  for (const [index, hit] of events.entries()) {
    const match = hit.kind === 'fault-hit' || hit.kind === 'fault-fired' ? WRITE_HIT.exec(hit.detail) : null;
    if (!match || !hit.process) continue;
    const [, jobText, attemptText] = match;
    const worker = hit.process.replace(/#\d+$/, '');
    // A paused worker writes only after it is resumed: the stale write is judged from then.
    const resumed = hit.kind === 'fault-fired' ? events.slice(index + 1).find((e) => e.kind === 'resume' && e.process === hit.process) : hit;
    if (!resumed) continue;
    const jobId = Number(jobText);
    const attempt = Number(attemptText);
    const history = histories.get(jobId) ?? [];
    const ownClaim = history.find((e) => isClaim(e) && e.attempt === attempt);
    const laterClaim = history.find((e) => isClaim(e) && e.attempt > attempt && (timeOf(e.at) ?? Number.POSITIVE_INFINITY) <= Date.parse(resumed.at));
    if (!ownClaim || !laterClaim) continue;
    const recorded = history.some(
      (e) => e.worker === worker && e.fence === ownClaim.fence && (timeOf(e.at) ?? 0) >= Date.parse(resumed.at) - evidence.skewMarginMs && e !== ownClaim,
    );
    if (!recorded) {
      found.breach(
        `job ${jobId}: ${worker} went on to its complete at ${resumed.at} under attempt ${attempt} (fence ${ownClaim.fence}) after the job was claimed again (${eventLabel(laterClaim)}), and the history records neither the write nor its refusal: the stale write passed silently`,
      );
    }
  }
}

/** At no time do two workers hold a live lease on one job; a stale worker's write is refused (fencing). */
export const singleHolder: Invariant = {
  id: 'single-holder',
  statement: "at no time do two workers hold a live lease on one job; a stale worker's write is refused (fencing)",
  check: (evidence) =>
    judge(singleHolder.id, singleHolder.statement, evidence, (found) => {
      const histories = historyByJob(evidence);
      const txs = txByJob(evidence);
      const margin = Number.isFinite(evidence.skewMarginMs) && evidence.skewMarginMs >= 0 ? evidence.skewMarginMs : 0;
      const leasesByJob = new Map<number, LeaseInterval[]>();
      for (const job of list(evidence.jobs)) {
        const label = jobLabel(job);
        const history = histories.get(job.id) ?? [];
        const leases = leasesOf(history);
        leasesByJob.set(job.id, leases);
        checkHistory(found, label, history, leases);
        checkTx(found, label, txs.get(job.id) ?? [], history, leases, margin);
      }
      let unmatched = 0;
      for (const effect of list(evidence.effects)) {
        if (effect.compensates !== null || effect.step.endsWith(':compensate')) continue; // applied by a coordinator, whose claims leave no event
        const job = list(evidence.jobs).find((j) => String(j.id) === String(effect.job));
        const leases = job ? leasesByJob.get(job.id) : undefined;
        if (!job || !leases) {
          unmatched++;
          continue;
        }
        const lease = leaseOfAttempt(leases, effect.attempt);
        if (!lease) found.breach(`${jobLabel(job)}: ${effectLabel(effect)} (key ${effect.key}) under attempt ${effect.attempt}, which the history never claimed`);
        else if (lease.claim.worker !== effect.worker) {
          found.breach(`${jobLabel(job)}: ${effectLabel(effect)} (key ${effect.key}), but attempt ${effect.attempt} was held by ${lease.claim.worker ?? '(nobody)'} (${eventLabel(lease.claim)})`);
        }
      }
      if (unmatched > 0) found.note(`${unmatched} ledger effect(s) name no job of the store and were not attributed`);
      checkStaleWrites(found, evidence, histories);
    }),
};
