import type { Evidence, Verdict } from './evidence.js';
import { jobOf } from './invariants/single-holder.js';
import { type StaleCall, staleCallsAtTheWorld } from './invariants/stale-at-world.js';
import { describeSpan, longestWithin, spanOf, unionMs } from './starvation.js';

/*
 * The one safety breach a starved machine can explain: a stale holder's call
 * that a plain world applied. A world that takes no fencing token (the
 * services the queues people run talk to) cannot refuse a holder that lost
 * its lease, and a worker starved past its lease loses it on any queue: what
 * follows (another holder begins, the first one's call arrives late and is
 * applied) is what every unfenced queue does on that machine, not a promise
 * this queue broke. So single-holder's stale calls are explained, and only
 * when every one of them is: the world did not fence; the holder, or the
 * harness it waits on, was not run for half the lease or more between its
 * delivery's start and the next delivery's; and no fault of the scenario
 * fired in that holder between its delivery's start and the call (an
 * injected stall is the drill's own doing, judged as it is). A stale write
 * the queue itself applied is never explained: a queue can refuse that on any
 * machine. Null when some safety breach is not such a call.
 */
export function explainStaleCallsByStarvation(evidence: Evidence, brokenSafety: readonly Verdict[]): string[] | null {
  const spans = evidence.starved ?? [];
  if (brokenSafety.length === 0 || spans.length === 0 || evidence.world?.fenced !== false) return null;
  if (brokenSafety.some((verdict) => verdict.id !== 'single-holder')) return null;
  const explained = new Map<string, string>();
  const enough = Math.floor(evidence.leaseMs / 2);
  for (const stale of staleCallsAtTheWorld(evidence.world, jobOf(evidence))) {
    const holder = stale.began.worker;
    const { from, to, faultsFrom } = notRunWindow(stale, evidence);
    const called = Date.parse(stale.call.at);
    const injected = evidence.timeline.some(
      (event) => event.kind === 'fault-fired' && event.worker === holder && Date.parse(event.at) >= faultsFrom && Date.parse(event.at) <= called,
    );
    const held = spans.filter((span) => spanOf(span, holder) || span.process === 'harness');
    const starvedMs = unionMs(held, from, to);
    const span = longestWithin(held, from, to, 1);
    if (injected || starvedMs < enough || span === null) continue;
    explained.set(
      stale.line,
      `single-holder: ${holder}'s call #${stale.call.seq} (${stale.call.tool ?? '?'}) reached a world that takes no fencing token after ` +
        `${holder} lost its lease for starvation (${starvedMs} ms of its delivery not run, ${holder} or the harness; ${describeSpan(span)}): ` +
        'what any unfenced queue does to a holder starved past its lease, not a fault the scenario injected',
    );
  }
  const lines = brokenSafety.flatMap((verdict) => verdict.evidence);
  if (lines.length === 0 || lines.some((line) => !explained.has(line))) return null;
  return [...new Set(lines)].map((line) => explained.get(line)!);
}

/** Where a stale call's holder must have been starved (from, to), and since when a fault it fired would count. */
interface Window {
  from: number;
  to: number;
  faultsFrom: number;
}

/**
 * From the stale holder's delivery's start to the later delivery's. When its own start was reported after the
 * later one's (it was starved between its claim and that report), the queue handed the job over once its lease
 * had ended, so its claim came a lease or more before the later start, and it was not run from then until it
 * reported; a fault it fired counts from its report before that one (a worker takes one job at a time, so its
 * claim came after it), or from the producers' release (else always).
 */
function notRunWindow(stale: StaleCall, evidence: Evidence): Window {
  const [began, later] = [Date.parse(stale.began.at), Date.parse(stale.later.at)];
  if (stale.began.seq < stale.later.seq) return { from: began, to: later, faultsFrom: began };
  const before = (evidence.world?.deliveries ?? []).filter((row) => row.worker === stale.began.worker && row.seq < stale.began.seq).at(-1);
  const faultsFrom = before ? Date.parse(before.at) : evidence.releasedAt ? Date.parse(evidence.releasedAt) : Number.NEGATIVE_INFINITY;
  return { from: later - evidence.leaseMs, to: began, faultsFrom };
}
