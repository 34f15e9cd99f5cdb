import type { TxRow } from '../../port/checkpoint.js';
import type { Transition } from '../../port/snapshot.js';
import type { EffectRow } from '../../world/ledger.js';
import type { Evidence } from '../evidence.js';
import { checkAtTheWorld } from './stale-at-world.js';
import { checkStaleWrites } from './stale-writes.js';
import {
  defineInvariant,
  effectLabel,
  eventLabel,
  evidenceList,
  type Findings,
  historyByJob,
  isClaim,
  jobLabel,
  judge,
  type LeaseInterval,
  leasesOf,
  timeOf,
  txByJob,
  txLabel,
} from './support.js';

/*
 * Single holder is judged three times, each from evidence the queue's word
 * cannot bend: its history, the saga's checkpoints, and the world's ledger.
 *
 * At the queue. Leases are rebuilt from the history alone: a claim (a
 * transition to running, with its epoch and worker) opens one, the next
 * transition out of running (or a later claim) ends it. From that:
 *   - a claim while the previous lease is still open is two live holders;
 *   - every claim takes a new, larger epoch, so no two claims share one;
 *   - once a job was claimed under epoch E, a transition under a smaller one is
 *     a stale holder's write that the queue applied instead of refusing, and so
 *     is a worker's transition while no lease is live (its lease was swept and
 *     nobody has claimed the job since);
 *   - a transition out of running carries the epoch of the lease it ends, and
 *     done or compensating is written by that lease's holder (a sweep of an
 *     expired lease may be written by another process, under the same epoch);
 *   - a stale holder that reached its complete (the harness saw it at the
 *     point right before) has that write in the history, applied or refused,
 *     whether the next holder still held the job or had already finished it:
 *     a write that left no trace passed silently.
 *
 * At the checkpoints. Every checkpoint carries the epoch it was written under:
 *   - a holder's checkpoint names an epoch the history claimed, for that
 *     worker and that attempt; a coordinator's reconcile names the expired
 *     lease it released;
 *   - in the order written, epochs never go down: a checkpoint under an epoch
 *     older than one already written is a stale holder's;
 *   - and, with time only as a last, conservative resort (stamps come from
 *     different clocks: a row counts as outside its lease only when further
 *     out than the skew margin), a holder's checkpoint falls inside its lease.
 * Compensation claims leave no event (the coordinator takes a lease without a
 * state change), so compensate checkpoints are placed by epoch (above the one
 * the job went to compensating under) and inside the compensating period.
 *
 * At the world. Every effect carries the epoch its caller showed: in the
 * ledger's order, an effect applied under an epoch older than one the world
 * had already seen for the job is a stale holder's, whatever the queue said;
 * and a step's effect was applied by the worker that held that epoch.
 *
 * At the harness's timeline: a stale holder that went on to its complete left
 * a trace in the history (stale-writes.ts).
 *
 * In the world's own record (stale-at-world.ts): a write to the queue, or a
 * call, that a holder made after another delivery of the job began, applied.
 * This part needs nothing of the queue, so where the queue keeps no history
 * (or no epochs, or no refusals) single-holder is still judged there, and the
 * verdict says it was judged at the world only.
 *
 * Judged: each lease (claim) rebuilt from the history.
 */

function checkHistory(found: Findings, label: string, history: readonly Transition[], leases: readonly LeaseInterval[]): void {
  const epochs = new Map<number, Transition>();
  let highest: Transition | undefined;
  for (const claim of history.filter(isClaim)) {
    const same = epochs.get(claim.epoch);
    if (same) found.breach(`${label}: two claims share epoch ${claim.epoch}: ${eventLabel(same)} and ${eventLabel(claim)}`);
    else if (highest && claim.epoch < highest.epoch)
      found.breach(`${label}: epoch went backwards: ${eventLabel(claim)} after ${eventLabel(highest)}`);
    epochs.set(claim.epoch, claim);
    if (!highest || claim.epoch > highest.epoch) highest = claim;
  }
  for (const lease of leases) {
    const end = lease.end;
    if (end && isClaim(end)) {
      found.breach(
        `${label}: claimed by ${end.worker ?? '?'} (${eventLabel(end)}) while the lease of ` +
          `${lease.claim.worker ?? '?'} (${eventLabel(lease.claim)}) was live: no transition out of running between them`,
      );
    } else if (end) {
      if (end.epoch !== lease.claim.epoch) {
        found.breach(
          `${label}: ${eventLabel(end)} ends the lease of ${lease.claim.worker ?? '?'} ` +
            `under epoch ${lease.claim.epoch} (${eventLabel(lease.claim)}) with another epoch`,
        );
      } else if ((end.to === 'done' || end.to === 'compensating') && end.worker !== lease.claim.worker) {
        found.breach(
          `${label}: ${eventLabel(end)} was written by ${end.worker ?? '(nobody)'}, ` +
            `not by the holder ${lease.claim.worker ?? '?'} (${eventLabel(lease.claim)})`,
        );
      }
    }
  }
  // A stale holder's transition: an applied change under an epoch smaller than
  // one already claimed, or a worker's change when no lease was live at all.
  let claimed: Transition | undefined;
  let open: Transition | undefined;
  let ended: Transition | undefined;
  for (const event of history) {
    if (event.kind !== 'transition') continue;
    if (isClaim(event)) {
      if (!claimed || event.epoch > claimed.epoch) claimed = event;
      open = event;
      continue;
    }
    if (claimed && event.epoch < claimed.epoch) {
      found.breach(
        `${label}: a stale write was applied, not refused: ${eventLabel(event)} after ` +
          `${claimed.worker ?? '?'} claimed it under epoch ${claimed.epoch} (${eventLabel(claimed)})`,
      );
    } else if (event.actor === 'worker' && !open) {
      found.breach(
        `${label}: a worker's write was applied with no live lease: ${eventLabel(event)}${ended ? ` (the last lease ended ${eventLabel(ended)})` : ''}`,
      );
    }
    if (event.from === 'running') {
      open = undefined;
      ended = event;
    }
  }
}

/** A person's rows (an approval, a requeue) are written outside any lease, by design. */
function byAPerson(row: TxRow): boolean {
  return row.action === 'approve' || row.action === 'requeue';
}

function checkTx(
  found: Findings,
  label: string,
  rows: readonly TxRow[],
  history: readonly Transition[],
  leases: readonly LeaseInterval[],
  marginMs: number,
): void {
  let newest: TxRow | undefined;
  for (const row of rows) {
    if (byAPerson(row)) continue;
    if (newest && row.epoch < newest.epoch) {
      found.breach(`${label}: ${txLabel(row)} was written under epoch ${row.epoch} after ${txLabel(newest)}: a stale holder's checkpoint`);
    }
    if (!newest || row.epoch > newest.epoch) newest = row;
  }
  const periods = compensatingPeriods(history);
  for (const row of rows) {
    if (byAPerson(row)) continue;
    const at = timeOf(row.at);
    if (row.action === 'compensate') {
      const period = periods.find(
        (p) => row.epoch > p.epoch && at !== undefined && at >= p.from - marginMs && (p.to === undefined || at <= p.to + marginMs),
      );
      if (!period)
        found.breach(
          `${label}: ${txLabel(row)} was written outside the job's compensating period (or under an ` +
            `epoch no later than the one it went to compensating under), when no coordinator could hold it`,
        );
      continue;
    }
    const lease = leases.find((l) => l.claim.epoch === row.epoch);
    if (!lease) {
      found.breach(`${label}: ${txLabel(row)} is written under epoch ${row.epoch}, which the history never claimed`);
      continue;
    }
    const holder = lease.claim.worker;
    if (row.attempt !== lease.claim.attempt) {
      found.breach(
        `${label}: ${txLabel(row)} names attempt ${row.attempt}, but epoch ${row.epoch} was attempt ${lease.claim.attempt} (${eventLabel(lease.claim)})`,
      );
    }
    if (row.worker !== holder) {
      const releasedBy =
        lease.end && !isClaim(lease.end) && lease.end.actor === 'coordinator' && lease.end.worker === row.worker ? lease.end : undefined;
      if (row.action === 'reconcile' && releasedBy) {
        // The coordinator settles an expired lease in the same transaction as its release.
        const end = timeOf(releasedBy.at);
        if (at !== undefined && end !== undefined && Math.abs(at - end) > marginMs) {
          found.breach(`${label}: ${txLabel(row)} by the coordinator, but away from its release of the lease (${eventLabel(releasedBy)})`);
        }
        continue;
      }
      found.breach(
        `${label}: ${txLabel(row)} was written by ${row.worker}, but epoch ${row.epoch} was held by ${holder ?? '(nobody)'} (${eventLabel(lease.claim)})`,
      );
      continue;
    }
    const start = timeOf(lease.claim.at);
    const end = lease.end ? timeOf(lease.end.at) : undefined;
    if (at !== undefined && start !== undefined && at < start - marginMs) {
      found.breach(`${label}: ${txLabel(row)} was written before its claim (${eventLabel(lease.claim)})`);
    } else if (at !== undefined && end !== undefined && lease.end && at > end + marginMs) {
      found.breach(
        `${label}: ${txLabel(row)} was written after ${holder ?? '?'}'s lease ended (${eventLabel(lease.end)}): a stale holder's checkpoint`,
      );
    }
  }
}

/** When a job was compensating (from running→compensating to compensating→review, open at the end), and the epoch it went there under. */
function compensatingPeriods(history: readonly Transition[]): Array<{ from: number; to: number | undefined; epoch: number }> {
  const periods: Array<{ from: number; to: number | undefined; epoch: number }> = [];
  for (const event of history) {
    if (event.kind !== 'transition') continue;
    const at = timeOf(event.at);
    if (at === undefined) continue;
    if (event.to === 'compensating') periods.push({ from: at, to: undefined, epoch: event.epoch });
    const last = periods[periods.length - 1];
    if (event.from === 'compensating' && last && last.to === undefined) last.to = at;
  }
  return periods;
}

/**
 * The world's side: in the ledger's order, an effect under an epoch older than
 * one already applied for the job came from a stale holder; and a step's
 * effect was applied by the worker that held its epoch (compensations come
 * from a coordinator, whose claims leave no event: only their order is judged).
 */
function checkEffects(found: Findings, evidence: Evidence, leasesByJob: Map<string, LeaseInterval[]>): void {
  const jobs = new Map(evidenceList(evidence, 'jobs').map((job) => [job.id, job]));
  const newest = new Map<string, EffectRow>();
  let unmatched = 0;
  let unfenced = 0;
  for (const effect of [...evidenceList(evidence, 'effects')].sort((a, b) => a.seq - b.seq)) {
    const job = jobs.get(String(effect.job));
    const leases = job ? leasesByJob.get(job.id) : undefined;
    if (!job || !leases) {
      unmatched++;
      continue;
    }
    const label = jobLabel(job);
    if (effect.epoch === null || effect.epoch === undefined) {
      unfenced++;
      continue;
    }
    const seen = newest.get(job.id);
    if (seen?.epoch !== null && seen?.epoch !== undefined && effect.epoch < seen.epoch) {
      found.breach(
        `${label}: the world applied ${effectLabel(effect)} (key ${effect.key}) under epoch ${effect.epoch} ` +
          `after it had applied ${effectLabel(seen)} under epoch ${seen.epoch}: a stale holder's effect`,
      );
    }
    if (!seen || (seen.epoch ?? -1) < effect.epoch) newest.set(job.id, effect);
    if (effect.compensates !== null || effect.step.endsWith(':compensate')) continue;
    const lease = leases.find((l) => l.claim.epoch === effect.epoch);
    if (!lease) found.breach(`${label}: ${effectLabel(effect)} (key ${effect.key}) under epoch ${effect.epoch}, which the history never claimed`);
    else if (lease.claim.worker !== effect.worker) {
      found.breach(
        `${label}: ${effectLabel(effect)} (key ${effect.key}), but epoch ${effect.epoch} ` +
          `was held by ${lease.claim.worker ?? '(nobody)'} (${eventLabel(lease.claim)})`,
      );
    }
  }
  if (unmatched > 0) found.note(`${unmatched} ledger effect(s) name no job of the queue and were not attributed`);
  if (unfenced > 0) found.note(`${unfenced} ledger effect(s) carry no epoch and were not placed`);
}

/** At no time do two workers hold a live lease on one job; a stale worker's write is refused (fencing). */
export const singleHolder = defineInvariant({
  id: 'single-holder',
  statement: "at no time do two workers hold a live lease on one job; a stale worker's write is refused (fencing)",
  needs: ['history', 'epoch', 'refusals'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    const txs = txByJob(evidence);
    const margin = Number.isFinite(evidence.skewMarginMs) && evidence.skewMarginMs >= 0 ? evidence.skewMarginMs : 0;
    const leasesByJob = new Map<string, LeaseInterval[]>();
    for (const job of evidenceList(evidence, 'jobs')) {
      const label = jobLabel(job);
      const history = histories.get(job.id) ?? [];
      const leases = leasesOf(history);
      leasesByJob.set(job.id, leases);
      found.judged(leases.length);
      checkHistory(found, label, history, leases);
      checkTx(found, label, txs.get(job.id) ?? [], history, leases, margin);
    }
    checkEffects(found, evidence, leasesByJob);
    checkStaleWrites(found, evidenceList(evidence, 'timeline'), histories, margin);
    found.judged(checkAtTheWorld(found, evidence.world, jobOf(evidence)));
  },
  checkWithout: (evidence, missing) => {
    let atWorld = 0;
    let byWriter = 0;
    const verdict = judge(singleHolder.id, singleHolder.statement, evidence, (found) => {
      atWorld = checkAtTheWorld(found, evidence.world, jobOf(evidence));
      if (evidence.available?.history === true) {
        const histories = historyByJob(evidence);
        for (const job of evidenceList(evidence, 'jobs')) byWriter += checkWriters(found, jobLabel(job), leasesOf(histories.get(job.id) ?? []));
      }
      found.judged(atWorld + byWriter);
    });
    // Nothing placed and nothing wrong: the part that needs nothing of the queue had nothing to judge either.
    if (atWorld + byWriter === 0 && verdict.status === 'held') return null;
    const where = [...(atWorld > 0 ? ['at the world'] : []), ...(byWriter > 0 ? ["by who wrote each change in the queue's history"] : [])];
    const only = `judged ${where.join(' and ') || 'on nothing'} only (not by epochs or refusals): ${missing}`;
    return { ...verdict, note: verdict.note ? `${only}; ${verdict.note}` : only };
  },
});

/**
 * Who ended each lease, where the history names the writers but not their
 * epochs: a worker's change out of running made by a worker other than the
 * one that claimed it is another holder's write, applied (a sweep is the
 * coordinator's, and is not a worker's). Returns the leases judged.
 */
function checkWriters(found: Findings, label: string, leases: readonly LeaseInterval[]): number {
  let judged = 0;
  for (const { claim, end } of leases) {
    if (!end || isClaim(end) || end.actor !== 'worker' || end.worker === null || claim.worker === null) continue;
    judged++;
    if (end.worker !== claim.worker) {
      found.breach(
        `${label}: ${eventLabel(end)} ended the lease ${claim.worker} held (${eventLabel(claim)}): ` +
          `another holder's write, and the queue applied it`,
      );
    }
  }
  return judged;
}

/** How a job is named in a line (by its id): by the queue's label where the queue has it. */
export function jobOf(evidence: Evidence): (id: string) => string {
  const jobs = new Map(evidenceList(evidence, 'jobs').map((job) => [job.id, job]));
  return (id) => {
    const job = jobs.get(id);
    return job ? jobLabel(job) : `job ${id}`;
  };
}
