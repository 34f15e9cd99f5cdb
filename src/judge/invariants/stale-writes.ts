import { pointFaultAction } from '../../faults/actions/index.js';
import { HarnessError } from '../../kernel/errors.js';
import type { Transition } from '../../port/snapshot.js';
import type { TimelineEvent } from '../evidence.js';
import { eventLabel, type Findings, isClaim, timeOf } from './support.js';

/*
 * Part of single-holder, judged from the harness's timeline: a worker the
 * harness saw at the point right before its complete (before_complete), that
 * went on after the job had been claimed again under a later attempt, wrote
 * stale: whether the next holder still held the job or had already finished
 * it. The history must then hold that write, its complete (a change to done),
 * refused and recorded (or applied, which the history checks of single-holder
 * break on); when it holds no complete of that worker under its epoch from the
 * moment it went on, the queue let the stale write pass silently (the queue
 * sketch's 0-row UPDATE; or a complete on a done job answered ok), and nobody
 * would ever know it happened. Another write of its (a renewal refused as it
 * woke) is no trace of its complete.
 *
 * Only the events' structured fields are read (point, kind, worker, job,
 * attempt, action, ms, and an exit's code or signal), never their words: an event at before_complete
 * without its worker, job or attempt is a harness bug, and fails the check.
 */

/** Where the worker stood, from a structured timeline event at before_complete. */
interface AtComplete {
  worker: string;
  job: string;
  attempt: number;
}

/** A plain hit at before_complete, or a fault fired there that held it or made it wait: the worker writes once it goes on. */
function atComplete(event: TimelineEvent): boolean {
  if (event.point !== 'before_complete') return false;
  return event.kind === 'fault-hit' || (event.kind === 'fault-fired' && event.ms !== undefined);
}

function placeOf(event: TimelineEvent): AtComplete {
  if (event.worker === undefined || event.job === undefined || event.attempt === undefined) {
    throw new HarnessError(
      'QD_TIMELINE_UNPLACED',
      `the timeline's ${event.kind} at before_complete (${event.at}) does not say which worker, job and attempt: it cannot be placed`,
    );
  }
  return { worker: event.worker, job: event.job, attempt: event.attempt };
}

/** When the worker went on to its complete: at a plain hit; when the harness let a held process go; after a wait's ms. Undefined: it never did. */
function wentOnAt(events: readonly TimelineEvent[], index: number, hit: TimelineEvent, place: AtComplete): string | undefined {
  if (hit.kind !== 'fault-fired') return hit.at;
  const action = pointFaultAction(hit.action);
  if (!action) throw new HarnessError('QD_TIMELINE_UNPLACED', `the timeline's fault at before_complete (${hit.at}) names no known action`);
  if (!action.holds) return new Date(Date.parse(hit.at) + (hit.ms ?? 0)).toISOString();
  return events
    .slice(index + 1)
    .find((e) => e.kind === 'resume' && e.point === hit.point && e.worker === place.worker && e.job === place.job && e.attempt === place.attempt)?.at;
}

/**
 * The exit of the process that went on to its complete, when it ended other
 * than by the drill's own stop (exit code 0): a crash or kill after it went on
 * may have come before its write was sent, so a history without the write
 * does not show that the queue passed it silently.
 */
function diedAfter(timeline: readonly TimelineEvent[], hit: TimelineEvent, wentOn: number): TimelineEvent | undefined {
  const exit = timeline.find((e) => e.kind === 'exit' && e.process !== undefined && e.process === hit.process && (timeOf(e.at) ?? 0) >= wentOn);
  return exit && (exit.signal !== undefined || exit.exitCode !== 0) ? exit : undefined;
}

/** Checks every worker the timeline saw go on to its complete after its job was claimed again; returns how many such stale writes it judged. */
export function checkStaleWrites(
  found: Findings,
  timeline: readonly TimelineEvent[],
  histories: Map<string, Transition[]>,
  marginMs: number,
): number {
  let judged = 0;
  for (const [index, hit] of timeline.entries()) {
    if (!atComplete(hit)) continue;
    const place = placeOf(hit);
    const at = wentOnAt(timeline, index, hit, place);
    if (at === undefined) continue;
    const wentOn = Date.parse(at);
    const history = histories.get(place.job) ?? [];
    const ownClaim = history.find((e) => isClaim(e) && e.attempt === place.attempt);
    const laterClaim = history.find((e) => isClaim(e) && e.attempt > place.attempt && (timeOf(e.at) ?? Number.POSITIVE_INFINITY) <= wentOn);
    if (!ownClaim || !laterClaim) continue;
    const recorded = history.some(
      (e) => e.to === 'done' && e.worker === place.worker && e.epoch === ownClaim.epoch && (timeOf(e.at) ?? 0) >= wentOn - marginMs,
    );
    const died = recorded ? undefined : diedAfter(timeline, hit, wentOn);
    if (died) {
      found.note(
        `${place.worker} went on to its stale complete of job ${place.job} at ${at} and then died (${died.detail}) with no complete of it in the history: ` +
          'whether its write reached the queue cannot be told',
      );
      continue;
    }
    judged++;
    if (!recorded) {
      found.breach(
        `job ${place.job}: ${place.worker} went on to its complete at ${at} under attempt ${place.attempt} (epoch ${ownClaim.epoch}) after the job ` +
          `was claimed again (${eventLabel(laterClaim)}), and the history records neither the write nor its refusal: the stale write passed silently`,
      );
    }
  }
  return judged;
}
