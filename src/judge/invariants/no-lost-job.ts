import type { JobSnapshot } from '../../port/snapshot.js';
import { acceptedByKey, clip, defineInvariant, evidenceList, jobLabel, shortKey } from './support.js';

const FINAL = new Set(['done', 'review']);

/** Why a job at rest is not finished, in the words a person needs to find it. */
function unfinished(job: JobSnapshot): string {
  const attempts = `attempts ${job.attempts}/${job.maxAttempts}`;
  switch (job.status) {
    case 'running':
      return `running at rest, leased by ${job.holder ?? '(nobody)'} until ${job.leaseUntil ?? '(no end)'} (epoch ${job.epoch}, ${attempts})`;
    case 'compensating':
      return (
        `compensating at rest: its saga never finished ` +
        `(${job.holder ? `held by ${job.holder} until ${job.leaseUntil}` : 'no coordinator holds it'}, ${attempts})`
      );
    default:
      return `${job.status} at rest (${attempts}, next run at ${job.nextRunAt}, last error ${clip(job.lastError, 80)})`;
  }
}

/**
 * How the line that says the drill ran out of time begins. It says nothing about
 * the queue by itself: a catch that rests on it alone is a catch by timeout.
 */
export const NEVER_AT_REST = 'the drill never reached rest before its deadline';

/**
 * Every accepted job ends done or in review: none left waiting, running or
 * half-compensated once the drill is at rest. Judged: each job in the store
 * whose end it examined (the accepted keys' jobs, and any other the store holds).
 */
export const noLostJob = defineInvariant({
  id: 'no-lost-job',
  statement: 'every accepted job ends done or in review',
  needs: [],
  judge: (evidence, found) => {
    const jobs = evidenceList(evidence, 'jobs');
    const accepted = acceptedByKey(evidence);
    if (evidence.atRest !== true) {
      const open = jobs.filter((job) => !FINAL.has(job.status));
      const unfinished = open.map((job) => `job ${job.id} ${job.status}`).join(', ');
      found.breach(`${NEVER_AT_REST}${open.length > 0 ? `: ${open.length} job(s) unfinished (${unfinished})` : ''}`);
    }
    if (accepted.size === 0) found.note('no job was accepted in this drill');
    for (const key of accepted.keys()) {
      const matches = jobs.filter((job) => job.key === key);
      if (matches.length === 0) {
        const asked = accepted.get(key);
        const failed = asked?.enqueueAttempts === 0 ? (asked.enqueueFailures ?? []) : [];
        // Never answered "created": the queue did not lose it, it never took it, and its producer was told why.
        found.breach(
          failed.length > 0
            ? `accepted key ${shortKey(key)}: never in the store: every enqueue of it failed (${failed[0]})`
            : `accepted key ${shortKey(key)}: no job with this key in the store (lost)`,
        );
        continue;
      }
      // Several jobs for one key are dedupe-on-enqueue's to report; here each must still end.
      found.judged(matches.length);
      for (const job of matches) if (!FINAL.has(job.status)) found.breach(`${jobLabel(job)}: ${unfinished(job)}`);
    }
    // A job the store holds but no producer reported (it died after enqueue) was accepted by the queue all the same.
    for (const job of jobs.filter((j) => !accepted.has(j.key))) {
      found.judged();
      if (!FINAL.has(job.status)) found.breach(`${jobLabel(job)} (not in the accepted list): ${unfinished(job)}`);
    }
  },
});
