/**
 * The jobKeyMode the adapter enqueues with (see enqueue.ts for why), in a
 * module of its own: fit names it without loading graphile-worker.
 */
export const JOB_KEY_MODE = 'unsafe_dedupe';
