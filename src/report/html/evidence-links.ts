import type { ScenarioReport } from '../schema.js';
import { jobEventId } from './lanes.js';

/*
 * Which events an evidence line is about, so the page can link the line to
 * them and highlight them on the timeline. The lines are made by the
 * invariants' own labels (src/judge/invariants/support.ts: jobLabel
 * "job 3 (key …)", eventLabel "event #12 …", txLabel "tx #4 …", a duplicated
 * effect's "key 3f1c…:charge"), so they are read back by those shapes; a line
 * that names nothing drawable links to nothing, and says so by having no link.
 * A job that did not end as expected is evidence by where it ended: its last
 * event.
 */

/** The element ids of the timeline marks an evidence line names. */
export function evidenceTargets(line: string, scenario: ScenarioReport, index: number): string[] {
  const named = new Set([...line.matchAll(/\bjob (\d+)\b/g)].map((m) => m[1]!));
  const jobs = scenario.jobs.filter((job) => job.id !== null && (named.size === 0 || named.has(job.id)));
  const events = new Set([...line.matchAll(/\bevent #(\d+)/g)].map((m) => Number(m[1])));
  const checkpoints = new Set([...line.matchAll(/\btx #(\d+)/g)].map((m) => Number(m[1])));
  const keys = new Set([...line.matchAll(/\bkey ([0-9a-f]{16}:[A-Za-z0-9_-]+(?::compensate)?)/g)].map((m) => m[1]!));
  const targets: string[] = [];
  for (const job of jobs) {
    for (const event of job.events) {
      const hit =
        ((event.kind === 'transition' || event.kind === 'refused') && events.has(event.seq)) ||
        (event.kind === 'checkpoint' && checkpoints.has(event.id)) ||
        (event.kind === 'effect' && keys.has(event.key));
      if (hit) targets.push(jobEventId(index, job.id!, event));
    }
  }
  // A line about a job as it ended ("running at rest, leased by w1"): its last lease, where the job was left.
  if (targets.length === 0 && named.size > 0 && events.size + checkpoints.size + keys.size === 0) {
    for (const job of jobs) {
      const claim = job.events.filter((e) => e.kind === 'transition' && e.to === 'running').at(-1);
      if (claim) targets.push(`${jobEventId(index, job.id!, claim)}-lease`);
    }
  }
  return targets;
}

/** The marks where each job that did not end as expected ended (its last event): the evidence of an expectation missed. */
export function expectationTargets(scenario: ScenarioReport, index: number): string[] {
  // A half-run's jobs are where they stood, not where they ended: none missed its expectation.
  if (scenario.interrupted !== null) return [];
  return scenario.jobs.flatMap((job) => {
    const last = job.events.at(-1);
    return !job.matches && job.id !== null && last !== undefined ? [jobEventId(index, job.id, last)] : [];
  });
}

/** The band of a scenario's worst starved span on its timeline (its event's id), or null when nothing starved it. */
export function worstStarvedBand(scenario: ScenarioReport, index: number): string | null {
  const worst = scenario.starvation.worst;
  if (worst === null) return null;
  const n = scenario.timeline.findIndex((e) => e.kind === 'starved' && e.process === worst.process && e.at === worst.from);
  return n >= 0 ? `s${index}-h${n}` : null;
}
