import type { JobStatus } from '../../port/states.js';
import { defineInvariant, eventLabel, evidenceList, historyByJob, jobLabel } from './support.js';

/**
 * A job's life can be rebuilt from its history alone, by its id: it starts
 * with its creation, each change starts where the previous one ended (a refused
 * write changes nothing, so it is not part of the chain), the chain ends in the
 * status the store holds, and the attempt count never goes backwards.
 * Judged: each job in the store.
 */
export const historyComplete = defineInvariant({
  id: 'history-complete',
  statement: "each job's life can be rebuilt from the history by its id",
  needs: ['history'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    const jobs = evidenceList(evidence, 'jobs');
    for (const job of jobs) {
      found.judged();
      const label = jobLabel(job);
      const history = histories.get(job.id) ?? [];
      if (history.length === 0) {
        found.breach(`${label}: no history at all (status ${job.status})`);
        continue;
      }
      const first = history[0];
      if (first && (first.kind !== 'transition' || first.from !== null || first.to !== 'pending')) {
        found.breach(`${label}: its history does not start with its creation: ${eventLabel(first)}`);
      }
      let state: JobStatus | null = null;
      let previous: (typeof history)[number] | undefined;
      let attempt = 0;
      let attemptEvent: (typeof history)[number] | undefined;
      for (const event of history) {
        if (event.attempt < attempt && attemptEvent) {
          found.breach(`${label}: attempts went backwards, ${attempt} to ${event.attempt}: ${eventLabel(event)} after ${eventLabel(attemptEvent)}`);
        }
        if (event.attempt >= attempt) {
          attempt = event.attempt;
          attemptEvent = event;
        }
        if (event.kind !== 'transition') continue;
        if (previous && event.from === null) found.breach(`${label}: created a second time: ${eventLabel(event)}`);
        else if (previous && event.from !== state) {
          found.breach(
            `${label}: ${eventLabel(event)} starts from ${event.from}, but the job was ${state} after ${eventLabel(previous)}: a change is missing`,
          );
        }
        state = event.to;
        previous = event;
      }
      if (state !== job.status) {
        found.breach(
          `${label}: the store says ${job.status}, but its history ends ${state ?? '(no transition)'}${previous ? ` (${eventLabel(previous)})` : ''}`,
        );
      }
    }
    const known = new Set(jobs.map((job) => job.id));
    for (const [jobId, history] of histories) {
      if (!known.has(jobId))
        found.breach(
          `the history names job ${jobId}, which is not in the store (${history.length} event(s), first ${history[0] ? eventLabel(history[0]) : '?'})`,
        );
    }
    if (jobs.length === 0) found.note('the store holds no job');
  },
});
