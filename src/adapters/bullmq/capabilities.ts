import type { Capabilities } from '../../port/adapter.js';

/**
 * What BullMQ 5.81.3 can show, read from what Redis itself keeps (the job
 * hash, the state lists and sets, the lock keys and the event stream), never
 * from the worker's word.
 */
export const BULLMQ_CAPABILITIES: Capabilities = {
  evidence: {
    // Every move is an entry of the events stream (added/waiting, active, delayed, stalled, completed, failed), with its time;
    // the stream names no worker, so transitions carry worker null (single-holder, which needs one, also needs refusals: not judged).
    history: true,
    refusals:
      "BullMQ refuses a stale holder's complete or fail (the lock token does not match: 'Missing lock' / 'Lock mismatch') " +
      'but records the refusal nowhere: no event, no field',
    epoch: true,
    holder: true,
    digest: true,
    // Nothing in BullMQ moves a job out of the failed set on its own: only Job.retry(), a person's call here.
    review: true,
    'retry-policy':
      "BullMQ records a retry's due time (the delayed event's `delay`, by the worker's clock) but not the delay it chose: " +
      'Redis stamps the entry later, by its own clock, so the delay cannot be read back exactly (the job hash keeps only the last one)',
    renewals:
      "BullMQ's worker extends its locks on its own timer, inside its loop: the drill's worker never sees an extension, " +
      'nor the lock end it set, to tell the harness',
  },
  // The lock token: a stale holder's complete, fail or extend is refused ('Missing lock' / 'Lock mismatch').
  fencing: true,
  sagaStore: 'beside-the-run',
  takeover: 'queue',
  compensation: 'BullMQ has no compensating state: a job that failed for good stays in its failed set, with nothing to hand it to a compensator',
  // Lock TTLs run in Redis and delays on the worker's Date.now(): not a clock a test can move.
  clock: 'server',
};
