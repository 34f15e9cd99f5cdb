import { jobLife } from '../job-life.js';
import type { JobReport, ScenarioReport } from '../schema.js';
import { escapeHtml as h } from './escape.js';
import { jobEventId, lineIdOf } from './lanes.js';

/*
 * Each job's history as text, under its scenario's timeline: the lines
 * report.md prints (job-life.ts, the one rendering of a life as text), each
 * event's line linked to its mark on the timeline and the mark back to it, so
 * what a mark's label could not say (its label dropped to keep labels apart,
 * or too small to read) is one click away, and the text can be read, searched
 * and copied without the picture. A line whose mark is evidence of a finding
 * is marked as such.
 */

/** One job's history: its head lines, then a line per event linked to its mark. */
function jobHistory(job: JobReport, index: number, highlighted: ReadonlySet<string>): string {
  const lines = jobLife(job);
  // jobLife writes one line per event, in order, after its head; a job the store does not hold has no marks to link.
  const events = job.id === null ? [] : job.events;
  const head = lines.slice(0, lines.length - events.length);
  const items = events.map((event, n) => {
    const mark = jobEventId(index, job.id!, event);
    const hl = highlighted.has(mark) || highlighted.has(`${mark}-lease`) ? ' class="hl"' : '';
    return `<li id="${h(lineIdOf(mark))}"${hl}><a class="to-event" href="#${h(mark)}">${h(lines[head.length + n]!.trim())}</a></li>`;
  });
  return `<div class="life${job.matches ? '' : ' bad'}"><p>${head.map((line) => h(line.trim())).join('<br>')}</p><ol>${items.join('')}</ol></div>`;
}

/** The history of every job of a scenario, open when it did not pass; '' when it has no jobs. */
export function jobHistories(scenario: ScenarioReport, index: number, highlighted: ReadonlySet<string>): string {
  if (scenario.jobs.length === 0) return '';
  const open = scenario.verdict === 'pass' ? '' : ' open';
  return (
    `<details class="lives"${open}><summary>Job histories (${scenario.jobs.length}), each line linked to its mark</summary>` +
    `${scenario.jobs.map((job) => jobHistory(job, index, highlighted)).join('')}</details>`
  );
}
