import type { LeaseReport } from '../../faults/clock-book.js';
import { type Placed, skewShown, type TimeBase, timeBase, writerOf } from '../../kernel/time-base.js';
import type { Transition } from '../../port/snapshot.js';
import type { Evidence } from '../evidence.js';
import {
  defineInvariant,
  eventLabel,
  evidenceList,
  type Findings,
  historyByJob,
  isClaim,
  jobLabel,
  type LeaseInterval,
  leasesOf,
} from './support.js';

/*
 * A lease is respected when nobody takes it back before it truly ended, every
 * time in one time base: the harness's (src/kernel/time-base.ts).
 *
 * A lease's true end is the latest end its queue granted it: the claim's, then
 * each renewal's, as the holder's worker told the harness the moment the queue
 * applied it (renewals are in no history). A takeover is the history's release
 * of the job (running to retry or review) under the lease's epoch, written by
 * someone other than the holder: the coordinator's sweep, or another worker's
 * claim sweeping it first. Each is placed in the harness's time by the clock
 * that wrote it (the writer's, with its measured offset taken off; or the
 * queue's server's, one clock for all). A takeover that certainly came more
 * than the skew margin before the lease's true end breaks it: the margin is
 * the slack a queue may take for skew between clocks, and "certainly" takes
 * in the bound of each measured offset.
 *
 * Only grants the harness heard of before the takeover count (none heard: the
 * lease is not judged, never judged on a guess). A stale holder's renewal
 * applied after it is single-holder's to judge, as are a claim while a lease
 * is open (two live holders) and another holder's write (a done, or a write
 * under another epoch). A restarted worker that sweeps the lease of its own
 * earlier incarnation writes under the holder's name: that end is taken for
 * the holder's own.
 *
 * Judged: each lease whose end the history records, placed in one time base.
 */

/** Where a lease taken back sends its job: back to the queue (a sweep), never to an end only its holder may write (done, compensating). */
const RELEASES: ReadonlySet<string> = new Set(['retry', 'review', 'pending']);

/**
 * Whether a lease's end was a takeover: a release of the job under the lease's
 * own epoch, written by the coordinator or by a worker that did not hold it.
 * Another holder's write under its own epoch, or a done nobody held, is single-holder's.
 */
function isTakeover(lease: LeaseInterval, end: Transition): boolean {
  if (!RELEASES.has(end.to) || end.epoch !== lease.claim.epoch) return false;
  return end.actor === 'coordinator' || (end.actor === 'worker' && end.worker !== lease.claim.worker);
}

/**
 * The latest end granted to a lease that the harness heard of by `by` (its
 * time); undefined when it heard of none (the report never came, or came
 * late): then the lease is not judged, never judged on a guess.
 */
function grantedEnd(lease: LeaseInterval, grants: readonly LeaseReport[], by: number, base: TimeBase): { end: Placed; said: string } | undefined {
  let best: { end: Placed; said: string } | undefined;
  for (const grant of grants) {
    if (grant.epoch !== lease.claim.epoch || Date.parse(grant.at) > by) continue;
    const end = base.queue(grant.leaseUntil, grant.process);
    if (end && (!best || end.earliest > best.end.earliest)) {
      const clock = base.correction(grant.process);
      best = { end, said: `its ${grant.by} set it until ${grant.leaseUntil}${clock ? ` by ${clock}` : ''}` };
    }
  }
  return best;
}

function checkJob(
  found: Findings,
  label: string,
  leases: readonly LeaseInterval[],
  grants: readonly LeaseReport[],
  context: { base: TimeBase; marginMs: number; unplaced: Set<string>; unheard: string[] },
): void {
  const { base, marginMs } = context;
  for (const lease of leases) {
    const end = lease.end;
    if (!end || isClaim(end)) continue;
    const writer = writerOf(end);
    const taken = base.queue(end.at, writer);
    if (!taken) {
      context.unplaced.add(writer ?? '(nobody)');
      continue;
    }
    if (!isTakeover(lease, end)) {
      found.judged();
      continue;
    }
    const granted = grantedEnd(lease, grants, taken.latest, base);
    if (!granted) {
      context.unheard.push(`${label} epoch ${lease.claim.epoch}`);
      continue;
    }
    found.judged();
    const early = granted.end.earliest - taken.latest;
    if (early <= marginMs) continue;
    const clock = base.correction(writer);
    found.breach(
      `${label}: taken back ${Math.floor(early)} ms before the lease of ${lease.claim.worker ?? '?'} truly ended ` +
        `(the skew margin allows ${marginMs} ms): ${eventLabel(end)}${clock ? ` (${clock})` : ''}, while ${granted.said} ` +
        `(epoch ${lease.claim.epoch}); in the harness's time, taken back by ${new Date(taken.latest).toISOString()}, ` +
        `the lease ran at least until ${new Date(granted.end.earliest).toISOString()}`,
    );
  }
}

/** The measured clocks that differ from the harness's (0 outside their bound), in one line (none: null). */
function clocksLine(evidence: Evidence): string | null {
  const shown = evidenceList(evidence, 'clocks')
    .map(skewShown)
    .filter((line) => line !== null);
  return shown.length === 0 ? null : `clocks measured against the harness's: ${shown.join(', ')}`;
}

/** No lease is taken back before it truly ended (by more than the skew margin), its claim, renewals and takeover placed in one time base. */
export const leaseRespected = defineInvariant({
  id: 'lease-respected',
  statement:
    'no lease is taken back before it truly ended: a takeover comes no earlier than the end its claim or last renewal set, ' +
    "less the skew margin, every time placed on the harness's clock",
  needs: ['history', 'epoch', 'renewals'],
  judge: (evidence, found) => {
    const base = timeBase(evidence.queueClock, evidenceList(evidence, 'clocks'));
    const marginMs = Number.isFinite(evidence.skewMarginMs) && evidence.skewMarginMs >= 0 ? evidence.skewMarginMs : 0;
    const context = { base, marginMs, unplaced: new Set<string>(), unheard: [] as string[] };
    const histories = historyByJob(evidence);
    const leases = evidenceList(evidence, 'leases');
    for (const job of evidenceList(evidence, 'jobs')) {
      const grants = leases.filter((grant) => grant.job === job.id);
      checkJob(found, jobLabel(job), leasesOf(histories.get(job.id) ?? []), grants, context);
    }
    if (context.unplaced.size > 0)
      found.note(`not placed in time (the clock of ${[...context.unplaced].sort().join(', ')} was never measured): those leases are not judged`);
    if (context.unheard.length > 0) found.note(`taken back with no grant of the lease heard of before (${context.unheard.join(', ')}): not judged`);
    const clocks = evidence.queueClock === 'caller' ? clocksLine(evidence) : null;
    if (clocks) found.note(clocks);
  },
});
