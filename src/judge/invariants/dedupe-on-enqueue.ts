import { defineInvariant, evidenceList, shortKey } from './support.js';

/**
 * One job per idempotency key in the store, and never more than one producer
 * told it created an accepted key, however many raced. A key nobody reports
 * creating is only noted when the store has its job: the producer that created
 * it may have been killed before it could say so, and the store is the better
 * witness (a missing job is no-lost-job's finding). Judged: each key on which
 * two producers' calls were in flight at once, and whose creation was
 * reported: a key enqueued one producer after another tests no race.
 */
export const dedupeOnEnqueue = defineInvariant({
  id: 'dedupe-on-enqueue',
  statement: 'one job per idempotency key, however many producers race',
  needs: [],
  judge: (evidence, found) => {
    const jobsByKey = new Map<string, string[]>();
    for (const job of evidenceList(evidence, 'jobs')) jobsByKey.set(job.key, [...(jobsByKey.get(job.key) ?? []), job.id]);
    for (const [key, ids] of jobsByKey) {
      if (ids.length > 1) found.breach(`key ${shortKey(key)}: ${ids.length} jobs in the store (jobs ${ids.join(', ')})`);
    }
    const accepted = evidenceList(evidence, 'accepted');
    if (accepted.length === 0) found.note('no job was accepted in this drill');
    let raced = 0;
    for (const request of accepted) {
      const ids = jobsByKey.get(request.key) ?? [];
      const where = ids.length > 0 ? ` (job ${ids.join(', ')})` : '';
      if (request.raced) raced++;
      if (request.raced && request.createdCount >= 1) found.judged();
      if (request.createdCount > 1) {
        found.breach(
          `key ${shortKey(request.key)}${where}: ${request.createdCount} of ${request.enqueueAttempts} ` +
            `enqueue attempt(s) were told they created the job (exactly 1 must be)`,
        );
      } else if (request.createdCount !== 1 && ids.length > 0) {
        found.note(
          `key ${shortKey(request.key)}${where}: no producer reported creating it (of ${request.enqueueAttempts} ` +
            `enqueue attempt(s) reported; one may have been killed before it could say so)`,
        );
      }
    }
    if (accepted.length > 0 && raced === 0) found.note("no key had two producers' enqueue calls in flight at once: nothing raced");
  },
});
