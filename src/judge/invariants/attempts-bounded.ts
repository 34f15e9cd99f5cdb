import { defineInvariant, evidenceList, historyByJob, isClaim, jobLabel } from './support.js';

/**
 * attempts never exceed max_attempts, and equal the claims in the history:
 * every attempt was a recorded claim and every claim was counted. Claims
 * number their attempts 1, 2, 3 ... (a human requeue keeps the count), so a
 * gap or repeat in those numbers is a claim the counter missed. Judged: each
 * job in the store.
 */
export const attemptsBounded = defineInvariant({
  id: 'attempts-bounded',
  statement: 'attempts never exceed max_attempts; attempts equals the number of claims in the history',
  needs: ['history'],
  judge: (evidence, found) => {
    const histories = historyByJob(evidence);
    for (const job of evidenceList(evidence, 'jobs')) {
      found.judged();
      const label = jobLabel(job);
      if (job.attempts > job.maxAttempts) found.breach(`${label}: attempts ${job.attempts} exceed max_attempts ${job.maxAttempts}`);
      const claims = (histories.get(job.id) ?? []).filter(isClaim);
      if (claims.length !== job.attempts) {
        const when = claims.length > 0 ? `: ${claims.map((c) => `#${c.seq} by ${c.worker ?? '?'} at ${c.at}`).join(', ')}` : '';
        found.breach(`${label}: attempts is ${job.attempts}, but the history holds ${claims.length} claim(s)${when}`);
      }
      claims.forEach((claim, index) => {
        if (claim.attempt !== index + 1) {
          found.breach(
            `${label}: claim #${claim.seq} by ${claim.worker ?? '?'} at ${claim.at} ` +
              `records attempt ${claim.attempt}, but it is claim ${index + 1} of the job`,
          );
        }
        if (claim.attempt > job.maxAttempts) {
          found.breach(
            `${label}: claim #${claim.seq} by ${claim.worker ?? '?'} at ${claim.at} is attempt ${claim.attempt}, past max_attempts ${job.maxAttempts}`,
          );
        }
      });
    }
    if (evidenceList(evidence, 'jobs').length === 0) found.note('the store holds no job');
  },
});
