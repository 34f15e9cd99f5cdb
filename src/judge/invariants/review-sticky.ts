import type { JobStatus } from '../../port/states.js';
import { defineInvariant, eventLabel, evidenceList, historyByJob, jobLabel } from './support.js';

/**
 * Nothing leaves review but a person: every transition out of review is by
 * actor `human` and back to pending, and a history that simply moves on from
 * review (its next change does not start from review) left it unrecorded.
 * Judged: each time a job went to review (what followed is what it checks).
 */
export const reviewSticky = defineInvariant({
  id: 'review-sticky',
  statement: 'nothing leaves review without a human action',
  needs: ['history', 'review'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    let reviewed = 0;
    for (const job of evidenceList(evidence, 'jobs')) {
      const label = jobLabel(job);
      let state: JobStatus | null = null;
      for (const event of histories.get(job.id) ?? []) {
        if (event.kind !== 'transition') continue;
        if (event.from === 'review') {
          if (event.actor !== 'human' || event.to !== 'pending')
            found.breach(`${label}: left review without a person's requeue: ${eventLabel(event)}`);
        } else if (state === 'review') {
          found.breach(`${label}: was in review, and its next change does not start from review (no recorded way out): ${eventLabel(event)}`);
        }
        state = event.to;
        if (state === 'review') {
          reviewed++;
          found.judged();
        }
      }
      if (state === 'review' && job.status !== 'review')
        found.breach(`${label}: its history ends in review, but the store says ${job.status}: it left review with no event at all`);
    }
    if (reviewed === 0) found.note('no job went to review in this drill');
  },
});
