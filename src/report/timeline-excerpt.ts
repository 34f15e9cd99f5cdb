import type { ScenarioReport, TimelineEvent } from './schema.js';

/*
 * The part of a scenario's timeline a person reads in a summary: what
 * happened. A `fault-hit` is a fault point a process passed with nothing
 * happening (most of a timeline: hundreds in a drill that passed), and a
 * `ready` is a process writing its first line (one per process, every
 * drill; a slow one is a `starved` span, which stays), so both are left out;
 * every fault that fired, kill, pause, restart, exit, starved span and note
 * stays. report.html and report.json keep the whole timeline.
 */

/** Kinds that say nothing happened. */
const UNEVENTFUL: ReadonlySet<TimelineEvent['kind']> = new Set(['fault-hit', 'ready']);

/** The events that say something happened, in order. */
export function eventfulTimeline(scenario: Pick<ScenarioReport, 'timeline'>): TimelineEvent[] {
  return scenario.timeline.filter((event) => !UNEVENTFUL.has(event.kind));
}

/** One event as a line of text: its time, kind, process and what happened. */
export function timelineLine(event: TimelineEvent): string {
  return `${event.at} ${event.kind.padEnd(17)} ${(event.process ?? '-').padEnd(8)} ${event.detail}`;
}
