import type { ExpiredLeaseRelease } from './adapter.js';

/** Where a job whose lease expired goes when nothing else is known: retry, or review on its last attempt. */
export function defaultRelease(job: {
  attempts: number;
  max_attempts: number;
  leased_by: string | null;
  lease_until: string | null;
}): ExpiredLeaseRelease {
  return job.attempts >= job.max_attempts
    ? { to: 'review', reason: `lease of ${job.leased_by} expired at ${job.lease_until} on its last attempt (${job.attempts} of ${job.max_attempts})` }
    : { to: 'retry', reason: `lease of ${job.leased_by} expired at ${job.lease_until}` };
}
