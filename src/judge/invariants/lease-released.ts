import { defineInvariant, evidenceList, jobLabel } from './support.js';

/**
 * At rest no job is running, and no job holds a lease but a running one (a
 * worker's) or a compensating one (the coordinator's, mid-saga): a lease left
 * on a done or review job is a release the queue forgot. Judged: each job in
 * the store.
 */
export const leaseReleased = defineInvariant({
  id: 'lease-released',
  statement: 'at rest no job is running; done and review jobs hold no lease',
  needs: ['holder'],
  judge: (evidence, found) => {
    if (evidence.atRest !== true) found.note('the drill never reached rest: this is the state it was stopped in');
    for (const job of evidenceList(evidence, 'jobs')) {
      found.judged();
      const label = jobLabel(job);
      if (job.status === 'running') {
        found.breach(
          `${label}: running at rest, leased by ${job.holder ?? '(nobody)'} until ` +
            `${job.leaseUntil ?? '(no end)'} (epoch ${job.epoch}, attempt ${job.attempts})`,
        );
      } else if (job.status !== 'compensating' && (job.holder !== null || job.leaseUntil !== null)) {
        found.breach(
          `${label}: ${job.status} but still leased by ${job.holder ?? '(nobody)'} until ${job.leaseUntil ?? '(no end)'} (epoch ${job.epoch})`,
        );
      }
    }
    if (evidenceList(evidence, 'jobs').length === 0) found.note('the store holds no job');
  },
});
