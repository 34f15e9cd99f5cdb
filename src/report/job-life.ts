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
  const at = placed?.at ?? event.at;
  return `${at}  ${eventText(event)}${placed ? `  [stamped ${event.at} by ${placed.by}]` : ''}`;
}

function eventText(event: JobEvent): string {
  switch (event.kind) {
    case 'effect':
      return (
        `effect  ${event.step.padEnd(12)} ${event.tool.padEnd(20)} ref ${event.ref} #${event.attempt} ${event.worker}` +
        `${event.epoch === null ? '' : ` epoch ${event.epoch}`}${event.compensation ? ' (compensation)' : ''}`
      );
    case 'transition':
    case 'refused':
      return (
        `state   ${(event.from ?? '(new)').padEnd(12)} -> ${event.to.padEnd(12)} ` +
        `${event.kind === 'refused' ? 'REFUSED ' : ''}#${event.attempt} ${event.worker ?? event.actor}: ${event.reason}`
      );
    case 'checkpoint':
      return (
        `step    ${event.step.padEnd(12)} ${event.action.padEnd(10)} ${event.status.padEnd(12)} #${event.attempt} ` +
        `${event.worker}${event.ref ? ` ref ${event.ref}` : ''}${event.detail ? `: ${event.detail}` : ''}`
      );
    case 'incident':
      return `INCIDENT ${event.step}: ${event.status}: ${event.error}`;
  }
}

/** A planned job's life, one line per event under its head; a job the store does not hold, one line saying so. */
export function jobLife(job: JobReport): string[] {
  const key = `${job.key.slice(0, 16)}…`;
  if (job.id === null) return [`no job with key ${key} in the store`];
  const reason = job.actual.reason !== null ? [`  review: ${job.actual.reason}`] : [];
  return [
    `job ${job.id} key ${key}: ${job.actual.status}, attempt ${job.attempts} of ${job.maxAttempts}`,
    ...reason,
    ...(job.approve !== null ? [`  approve: ${job.approve}`] : []),
    ...job.events.map(eventLine),
  ];
}
