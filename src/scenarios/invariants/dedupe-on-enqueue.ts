import type { Invariant } from '../evidence.js';
import { judge, list, shortKey } from './support.js';

/** One job per idempotency key in the store, and exactly one producer told it created each accepted key, however many raced. */
export const dedupeOnEnqueue: Invariant = {
  id: 'dedupe-on-enqueue',
  statement: 'one job per idempotency key, however many producers race',
  check: (evidence) =>
    judge(dedupeOnEnqueue.id, dedupeOnEnqueue.statement, evidence, (found) => {
      const jobsByKey = new Map<string, number[]>();
      for (const job of list(evidence.jobs)) jobsByKey.set(job.idempotency_key, [...(jobsByKey.get(job.idempotency_key) ?? []), job.id]);
      for (const [key, ids] of jobsByKey) {
        if (ids.length > 1) found.breach(`key ${shortKey(key)}: ${ids.length} jobs in the store (jobs ${ids.join(', ')})`);
      }
      const accepted = list(evidence.accepted);
      if (accepted.length === 0) found.note('no job was accepted in this drill');
      let raced = 0;
      for (const request of accepted) {
        const ids = jobsByKey.get(request.key) ?? [];
        const where = ids.length > 0 ? ` (job ${ids.join(', ')})` : '';
        if (request.enqueueAttempts > 1) raced++;
        if (request.createdCount !== 1) {
          found.breach(
            `key ${shortKey(request.key)}${where}: ${request.createdCount} of ${request.enqueueAttempts} enqueue attempt(s) were told they created the job (exactly 1 must be)`,
          );
        } else if (!(request.enqueueAttempts >= 1)) {
          found.note(`key ${shortKey(request.key)}: created once but ${String(request.enqueueAttempts)} enqueue attempts recorded (the producer's count is odd)`);
        }
      }
      if (accepted.length > 0 && raced === 0) found.note('no key was enqueued more than once: nothing raced');
    }),
};
