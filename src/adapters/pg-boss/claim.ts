import type PgBoss from 'pg-boss';
import type { Claim } from '../../port/delivery.js';
import { readJobData } from './job-data.js';

/**
 * A fetched job as a claim for `workerId` (pg-boss records no holder: the id
 * is the caller's). Attempt and epoch are pg-boss's retry_count + 1: it is
 * raised at every fetch but the first; the lease runs from started_on.
 */
export function claimOfFetched(job: PgBoss.JobWithMetadata, workerId: string): Claim {
  const data = readJobData(job.data);
  const attempt = job.retryCount + 1;
  return {
    jobId: job.id,
    key: data.key,
    action: data.action,
    payload: data.payload,
    maxAttempts: Math.max(data.maxAttempts, job.retryLimit + 1),
    attempt,
    epoch: attempt,
    holder: workerId,
    token: null,
    leaseUntil: new Date(new Date(job.startedOn).getTime() + job.expireInSeconds * 1000).toISOString(),
  };
}
