import { DRILL_APPROVER } from '../kernel/drill-approver.js';
import { effectLine, incidentLine, placedLine, stateLine, stepLine } from '../kernel/life-lines.js';
import type { JobEvent, JobReport } from './schema.js';

/*
 * A job's life as a person reads it, from its events in the report (the
 * judge hands the life over as data; this is its one rendering as text): a
 * head line with how it ended, the approval it waits for, then one line per
 * event in the drill's one time base.
 */

/** One event as a line: at the harness's time, with the stamp as written where a measured clock moved it. */
function eventLine(event: JobEvent): string {
  const placed = event.kind === 'effect' || event.kind === 'incident' ? undefined : event.placed;
  return placedLine(placed?.at ?? event.at, eventText(event), placed ? { stamp: event.at, correction: placed.by } : null);
}

function eventText(event: JobEvent): string {
  switch (event.kind) {
    case 'effect':
      return effectLine(event, `${event.epoch === null ? '' : ` epoch ${event.epoch}`}${event.compensation ? ' (compensation)' : ''}`);
    case 'transition':
    case 'refused':
      return stateLine({ ...event, refused: event.kind === 'refused', by: event.worker ?? event.actor });
    case 'checkpoint':
      return stepLine(event);
    case 'incident':
      return incidentLine(event);
  }
}

/** The steps the drill itself approved (`approve: true`), in order: its decisions, which the report names as the drill's. */
export function drillApprovals(job: JobReport): string[] {
  return job.events.flatMap((e) => (e.kind === 'checkpoint' && e.action === 'approve' && e.worker === `human:${DRILL_APPROVER}` ? [e.step] : []));
}

function approvedNote(job: JobReport): string {
  const steps = drillApprovals(job);
  return steps.length === 0 ? '' : `; the drill approved ${steps.map((s) => `step ${s}`).join(', ')} (a recorded human action)`;
}

/** A planned job's life, one line per event under its head; a job the store does not hold, one line saying so. */
export function jobLife(job: JobReport): string[] {
  const key = `${job.key.slice(0, 16)}…`;
  if (job.id === null) return [`no job with key ${key} in the store`];
  const reason = job.actual.reason !== null ? [`  review: ${job.actual.reason}`] : [];
  return [
    `job ${job.id} key ${key}: ${job.actual.status}, attempt ${job.attempts} of ${job.maxAttempts}${approvedNote(job)}`,
    ...reason,
    ...(job.approve !== null ? [`  approve: ${job.approve}`] : []),
    ...job.events.map(eventLine),
  ];
}
